/**
 * Everything gardenlet renders for the node configuration of one shoot, as plain objects: the
 * seed side (shoot-access secrets, the OSC pair per worker pool, ManagedResource
 * `shoot-gardener-node-agent` with its secrets) and the shoot side (what that ManagedResource puts
 * into the shoot: one OSC secret per pool and the node agents' RBAC).
 */
import {
  type Cluster,
  DEFAULT_GARDENER_VERSION,
  type GardenerVersion,
  type Instant,
  NAME,
  type OperatingSystemConfig,
} from '../api/index.js';
import { cloudConfigStatus } from '../components/os-local/status.js';
import { renderUserData } from '../components/os-local/user-data.js';
import { withInjectedLabels } from './managed-resource/injected-labels.js';
import {
  type LegacyPool,
  legacyExecutorResources,
  type OsExtensionRendering,
} from './managed-resource/legacy-executor.js';
import { managedResource, managedResourceSecret, registryData } from './managed-resource/managed-resource.js';
import { oscSecret, type SeedSecrets, type ShootSecret } from './managed-resource/osc-secret.js';
import { nodeAgentRbac } from './managed-resource/rbac.js';
import { renderNodeConfigurationV150 } from './node-configuration-v150.js';
import { oscContents } from './operating-system-config/osc-contents.js';
import { oscObject } from './operating-system-config/osc-object.js';
import { shootAccessSecrets } from './shoot-access.js';
import type { RenderValues } from './values/render-values.js';
import { shootValues, workerPoolContext } from './values/worker-pool-context.js';

export interface NodeConfigurationInput {
  readonly cluster: Cluster;
  readonly values: RenderValues;
  /** The contract rendered (default v1.91.4); v1.150.0 refuses what it does not have (NotInContractV150Error). */
  readonly gardenerVersion?: GardenerVersion;
  readonly useGardenerNodeAgent: boolean;
  /**
   * gardenlet v1.150.0's feature gate `OpenTelemetryCollector` (Beta, default on): off, the log
   * shipper of the v1.150.0 contract is valitail instead of the OpenTelemetry Collector. Read only
   * in v1.150.0 mode; v1.91.4 has no such gate.
   */
  readonly openTelemetryCollector?: boolean;
  /** Legacy (cloud-config-downloader) nodes remain; implied when the gate is off. */
  readonly legacyNodes: boolean;
  readonly now: Instant;
  /**
   * Reconcile OSCs as the OS extension left them (with status), by name; default: as rendered,
   * status empty. In v1.150.0 mode read as the Go-shaped objects they are.
   */
  readonly reconciledOscs?: ReadonlyMap<string, OperatingSystemConfig>;
  /** The OS extension's output for a reconcile OSC; default: the reference rendering of components/os-local. */
  readonly osExtension?: (osc: OperatingSystemConfig) => OsExtensionRendering;
  /**
   * Only what the OS extension must see first: the shoot-access secrets and the OSC pair per
   * pool, without what is rendered from the reconciled OSCs (OSC secrets, ManagedResources, the
   * legacy executors, the shoot objects). A controller renders this way before the OS extension
   * has reconciled, so it does not render, and throw away, the rest from OSCs without status.
   */
  readonly oscsOnly?: boolean;
}

/** Offline there is no OS extension: the legacy executor is built from the reference rendering. */
export function referenceOsExtension(secrets: SeedSecrets) {
  return (osc: OperatingSystemConfig): OsExtensionRendering => {
    const status = cloudConfigStatus(osc);
    return {
      cloudConfig: renderUserData(osc, { resolveSecretRef: (ref) => secrets(ref.name)?.[ref.dataKey] }),
      command: status.command,
      units: status.units ?? [],
      files: status.files ?? [],
      source: 'reference OS-extension rendering (components/os-local), rendered offline by gardener-osc',
    };
  };
}

/** Any Kubernetes object we render. */
export interface RenderedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name?: string;
    readonly namespace?: string;
    readonly labels?: Record<string, string>;
  };
}

export interface NodeConfiguration {
  readonly seed: RenderedObject[];
  readonly shoot: RenderedObject[];
  /** Things the render could not do, to tell the user. */
  readonly warnings: string[];
}

export function renderNodeConfiguration(input: NodeConfigurationInput): NodeConfiguration {
  const gardenerVersion = input.gardenerVersion ?? DEFAULT_GARDENER_VERSION;
  if (gardenerVersion === 'v1.150.0') return renderNodeConfigurationV150(input);
  const { cluster, values, useGardenerNodeAgent, now } = input;
  const shoot = shootValues(cluster, values, useGardenerNodeAgent);
  const legacyNodes = input.legacyNodes || !useGardenerNodeAgent;
  const seed: RenderedObject[] = [
    ...shootAccessSecrets({
      namespace: shoot.namespace,
      useGardenerNodeAgent,
      legacyNodes,
      nodeLogging: values.nodeLogging ?? false,
      nodeAgentIdentity: shoot.nodeAgentIdentity,
    }),
  ];
  const warnings: string[] = [];
  if (shoot.maxDelay.source === 'rejected' || shoot.maxDelay.source === 'ignored')
    warnings.push(shoot.maxDelay.reason);
  // The seed secrets OSC files may reference: the cluster CA (the legacy downloader's ca.crt).
  const secrets: SeedSecrets = (name) =>
    name === shoot.clusterCa.secretName ? { 'bundle.crt': shoot.clusterCa.bundle } : undefined;

  const oscSecrets: ShootSecret[] = [];
  const poolSecrets: RenderedObject[] = [];
  const legacyPools: LegacyPool[] = [];
  const osExtension = input.osExtension ?? referenceOsExtension(secrets);
  for (const worker of cluster.shoot.spec.provider.workers.filter((w) => w.machine.image)) {
    const ctx = workerPoolContext(cluster, values, shoot, worker);
    const inputs = { ctx, worker, clusterCa: shoot.clusterCa };
    const provision = oscObject(
      ctx,
      worker,
      'provision',
      oscContents('provision', inputs),
      shoot.namespace,
      now,
    );
    const reconcile = oscObject(
      ctx,
      worker,
      'reconcile',
      oscContents('reconcile', inputs),
      shoot.namespace,
      now,
    );
    seed.push(provision, reconcile);
    if (input.oscsOnly) continue;
    const reconciled = input.reconciledOscs?.get(reconcile.metadata.name ?? '') ?? reconcile;
    if (legacyNodes)
      legacyPools.push({ ctx, worker, reconcile: reconciled, rendering: osExtension(reconciled) });
    if (!useGardenerNodeAgent) continue;
    const secret = oscSecret(reconciled, ctx.key, worker.name, secrets);
    oscSecrets.push(secret);
    poolSecrets.push(
      managedResourceSecret(
        NAME.managedResourceNodeAgent,
        `${NAME.managedResourceNodeAgent}-${worker.name}`,
        shoot.namespace,
        registryData([secret]),
      ),
    );
  }

  if (input.oscsOnly) return { seed, shoot: [], warnings };
  const shootObjects: RenderedObject[] = [];
  if (useGardenerNodeAgent) {
    const rbac = nodeAgentRbac(
      oscSecrets.map((s) => s.metadata.name),
      shoot.nodeAgentIdentity,
    );
    const rbacSecret = managedResourceSecret(
      NAME.managedResourceNodeAgent,
      NAME.rbacLogicalNodeAgent,
      shoot.namespace,
      registryData(rbac),
    );
    const secrets = [...poolSecrets, rbacSecret];
    seed.push(
      ...secrets,
      managedResource(
        NAME.managedResourceNodeAgent,
        shoot.namespace,
        secrets.map((s) => s.metadata.name ?? ''),
      ),
    );
    shootObjects.push(
      ...oscSecrets.map(withInjectedLabels),
      ...(rbac as unknown as RenderedObject[]).map(withInjectedLabels),
    );
  }
  if (legacyNodes) {
    const legacy = legacyExecutorResources(
      legacyPools,
      shoot.namespace,
      shoot.maxDelay.seconds,
      useGardenerNodeAgent,
      shoot.nodeAgentIdentity,
    );
    seed.push(...(legacy.seed as RenderedObject[]));
    shootObjects.push(...(legacy.shoot as unknown as RenderedObject[]).map(withInjectedLabels));
    if (!input.osExtension) {
      warnings.push(
        `ManagedResource ${NAME.managedResourceLegacy}: the executors carry the reference OS-extension rendering of the reconcile OSCs (no OS extension ran)`,
      );
    }
  }
  return { seed, shoot: shootObjects, warnings };
}
