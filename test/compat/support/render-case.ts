/**
 * One corpus case rendered twice from the same inputs: by our charts and by gardenlet's code in the
 * oracle (which gets what the botanist would: the Cluster, the secrets manager's CAs and SSH keys,
 * the API server URL, node logging, and what the OS extension wrote into each OSC's status).
 */
import {
  type Cluster,
  decodeCluster,
  formatFieldErrors,
  type OperatingSystemConfig,
  parseRfc3339,
} from '../../../api/index.js';
import type { OsExtensionRendering } from '../../../charts/managed-resource/legacy-executor.js';
import {
  type NodeConfiguration,
  referenceOsExtension,
  renderNodeConfiguration,
} from '../../../charts/node-configuration.js';
import { PLACEHOLDER_CA, type RenderValues } from '../../../charts/values/render-values.js';
import { shootValues } from '../../../charts/values/worker-pool-context.js';
import type { Oracle } from './oracle.js';

export interface RenderCase {
  readonly name: string;
  /** The Cluster object as a landscape holds it (plain JSON). */
  readonly cluster: Record<string, unknown>;
  readonly values: RenderValues;
  readonly useGardenerNodeAgent: boolean;
  readonly legacyNodes?: boolean;
  readonly now?: string;
}

export interface RenderedPair {
  readonly ours: NodeConfiguration;
  readonly upstream: Record<string, unknown>[];
  readonly cluster: Cluster;
}

const DEFAULT_NOW = '2024-06-01T12:00:00Z';

export function decodeCase(c: RenderCase): Cluster {
  const decoded = decodeCluster(c.cluster);
  if (!decoded.ok) throw new Error(`case ${c.name}: ${formatFieldErrors(decoded.errors)}`);
  return decoded.value;
}

export async function renderBoth(oracle: Oracle, c: RenderCase): Promise<RenderedPair> {
  const cluster = decodeCase(c);
  const ca = c.values.caBundles ?? PLACEHOLDER_CA;
  const reference = referenceOsExtension((name) =>
    name === ca.clusterSecretName ? { 'bundle.crt': ca.cluster } : undefined,
  );
  const extension = new Map<string, OsExtensionRendering>();
  const ours = renderNodeConfiguration({
    cluster,
    values: c.values,
    useGardenerNodeAgent: c.useGardenerNodeAgent,
    legacyNodes: c.legacyNodes ?? false,
    now: parseRfc3339(c.now ?? DEFAULT_NOW),
    osExtension: (osc: OperatingSystemConfig) => {
      const rendering = reference(osc);
      extension.set(osc.metadata.name ?? '', rendering);
      return rendering;
    },
  });
  // Upstream's stand-in OS extension writes the same user data and status for every reconcile OSC.
  for (const o of ours.seed) {
    const osc = o as unknown as OperatingSystemConfig;
    if (
      o.kind === 'OperatingSystemConfig' &&
      osc.spec.purpose === 'reconcile' &&
      !extension.has(o.metadata.name ?? '')
    )
      extension.set(o.metadata.name ?? '', reference(osc));
  }
  const shoot = shootValues(cluster, c.values, c.useGardenerNodeAgent);
  const result = await oracle.ask<{ seed: Record<string, unknown>[] }>('render', {
    cluster: c.cluster,
    useGardenerNodeAgent: c.useGardenerNodeAgent,
    legacyNodes: c.legacyNodes ?? false,
    nodeLogging: c.values.nodeLogging ?? false,
    now: c.now ?? DEFAULT_NOW,
    apiServerURL: shoot.apiServerUrl,
    clusterDNSAddress: c.values.clusterDnsAddress,
    clusterCA: Buffer.from(ca.cluster).toString('base64'),
    clusterCASecretName: ca.clusterSecretName,
    kubeletCA: Buffer.from(ca.kubelet).toString('base64'),
    sshPublicKeys: c.values.sshPublicKeys ?? [],
    osExtension: Object.fromEntries(
      [...extension].map(([name, r]) => [
        name,
        {
          cloudConfig: Buffer.from(r.cloudConfig).toString('base64'),
          command: r.command,
          units: r.units,
          files: r.files,
        },
      ]),
    ),
  });
  return { ours, upstream: result.seed, cluster };
}
