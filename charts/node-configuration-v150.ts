/**
 * Everything gardenlet v1.150.0 renders for the node configuration of one shoot: the OSC pair per
 * worker pool, the ManagedResource `shoot-gardener-node-agent` with one secret per pool (its OSC
 * secret, `osc.yaml` stripped) and the secret with the three bootstrap ClusterRoleBindings
 * (seed-objects-v150.ts); with node logging, the log shipper's shoot-access secret (the
 * OpenTelemetry Collector's, or valitail's while gardenlet's `OpenTelemetryCollector` gate is off),
 * as v1.91.4 mode renders valitail's. No downloader, executor or migration objects and no shoot-access secret for
 * the agent: since v1.92.0 every node runs the agent, and it joins with the bootstrap token. With a
 * registry CA, also the shoot's ConfigMap node init reads it from (V150-4).
 */
import { NAME, OPENTELEMETRY_COLLECTOR_ACCESS, shootAccessSecret, VALITAIL_ACCESS } from '../api/index.js';
import { withInjectedLabels } from './managed-resource/injected-labels.js';
import type { SeedSecrets } from './managed-resource/osc-secret.js';
import {
  REGISTRY_CA_BUNDLE_NAME,
  registryCaBundleObjectsV150,
} from './managed-resource/registry-ca-bundle-v150.js';
import type { NodeConfiguration, NodeConfigurationInput, RenderedObject } from './node-configuration.js';
import { poolContentsV150 } from './pool-contents-v150.js';
import { seedObjectsV150 } from './seed-objects-v150.js';
import { imagesV150 } from './values/images-v150.js';
import { shootValues } from './values/worker-pool-context.js';

/** What the v1.91.4 contract has and v1.150.0 does not; asked for in v1.150.0 mode, it is an error. */
export class NotInContractV150Error extends Error {
  constructor(what: string) {
    super(
      `${what} is not part of the Gardener v1.150.0 contract (every node runs gardener-node-agent since v1.92.0)`,
    );
    this.name = 'NotInContractV150Error';
  }
}

export function renderNodeConfigurationV150(input: NodeConfigurationInput): NodeConfiguration {
  const { cluster, values, now } = input;
  if (!input.useGardenerNodeAgent)
    throw new NotInContractV150Error('feature gate UseGardenerNodeAgent=false');
  if (input.legacyNodes) throw new NotInContractV150Error('legacy nodes (cloud-config-downloader)');
  if (values.nodeAgentIdentity === 'serviceAccount')
    throw new NotInContractV150Error(
      'nodeAgentIdentity serviceAccount (the shared gardener-node-agent ServiceAccount)',
    );
  const shoot = shootValues(cluster, values, true);
  const images = imagesV150(values);
  const openTelemetryCollector = input.openTelemetryCollector ?? true;
  const pools = cluster.shoot.spec.provider.workers
    .filter((w) => w.machine.image)
    .map((worker) => poolContentsV150({ cluster, values, shoot, worker, images, openTelemetryCollector }));
  const warnings: string[] = [];
  if (shoot.maxDelay.source === 'rejected' || shoot.maxDelay.source === 'ignored')
    warnings.push(shoot.maxDelay.reason);
  // the seed secrets an OSC file may reference: the cluster CA, as in v1.91.4 mode
  const secrets: SeedSecrets = (name) =>
    name === shoot.clusterCa.secretName ? { 'bundle.crt': shoot.clusterCa.bundle } : undefined;
  // no gardenlet writes the shoot's registry CA ConfigMap beside our render (V150-4)
  const registryCa =
    values.registryCaBundle === undefined
      ? []
      : [
          {
            name: `${NAME.managedResourceNodeAgent}-${REGISTRY_CA_BUNDLE_NAME}`,
            objects: registryCaBundleObjectsV150(values.registryCaBundle),
          },
        ];
  const rendered = seedObjectsV150(pools, shoot.namespace, now, secrets, input.reconciledOscs, registryCa);
  const access: RenderedObject[] = values.nodeLogging
    ? [
        shootAccessSecret({
          ...(openTelemetryCollector ? OPENTELEMETRY_COLLECTOR_ACCESS : VALITAIL_ACCESS),
          namespace: shoot.namespace,
        }),
      ]
    : [];
  const oscs = rendered.seed.filter((o) => o.kind === 'OperatingSystemConfig') as unknown as RenderedObject[];
  if (input.oscsOnly) return { seed: [...access, ...oscs], shoot: [], warnings };
  return {
    seed: [...access, ...(rendered.seed as unknown as RenderedObject[])],
    shoot: (rendered.shoot as unknown as RenderedObject[]).map(withInjectedLabels),
    warnings,
  };
}
