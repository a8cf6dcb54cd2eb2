/**
 * Renders with Gardener v1.150.0's own code (the gardener-oracle-150 `render` op) from the
 * project's example inputs: examples/cluster.yaml and examples/values.yaml, the files
 * `gardener-osc render` uses by default.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseYaml } from '../../../api/index.js';
import type { Oracle150 } from './oracle-150.js';

const EXAMPLES = join(import.meta.dirname, '../../../examples');

// biome-ignore lint/suspicious/noExplicitAny: plain JSON documents, read and edited by path
type Json = any;

export interface ExampleValues {
  readonly apiServerUrl: string;
  readonly caBundles: { cluster: string; clusterSecretName: string; kubelet: string };
  readonly sshPublicKeys?: string[];
  readonly nodeLogging?: boolean;
  readonly clusterDnsAddress?: string;
  readonly registryCaBundle?: string;
}

export const exampleCluster = (): Json => parseYaml(readFileSync(join(EXAMPLES, 'cluster.yaml'), 'utf8'));
export const exampleValues = (): ExampleValues =>
  parseYaml(readFileSync(join(EXAMPLES, 'values.yaml'), 'utf8')) as ExampleValues;

/**
 * The reference worker pool of the v1.150 measurements (Kubernetes 1.34.1, one pool `worker-a`:
 * m5.large, gardenlinux 1877.0.0, a 50Gi gp3 volume, containerd, SSH on, no kubelet settings) in
 * the example Cluster.
 */
export function referencePoolCluster(kubernetesVersion = '1.34.1'): Json {
  const cluster = exampleCluster();
  const spec = cluster.spec.shoot.spec;
  spec.kubernetes.version = kubernetesVersion;
  // the reference pool has no kubelet settings that enter the OSC key (evictionHard does)
  delete spec.kubernetes.kubelet;
  spec.provider.workers = [
    {
      name: 'worker-a',
      machine: {
        type: 'm5.large',
        image: { name: 'gardenlinux', version: '1877.0.0' },
        architecture: 'amd64',
      },
      volume: { size: '50Gi', type: 'gp3' },
      cri: { name: 'containerd' },
      minimum: 1,
      maximum: 3,
      zones: ['europe-a'],
    },
  ];
  return cluster;
}

export const RENDER_NOW = '2024-01-01T00:00:00Z';

/** Everything gardenlet v1.150.0 writes into the seed for this Cluster: OSCs, Secrets, ManagedResource. */
export async function renderV150(
  oracle: Oracle150,
  cluster: Json,
  values: ExampleValues = exampleValues(),
  /** gardenlet's feature gates for this render (default: their defaults). */
  featureGates?: Record<string, boolean>,
): Promise<Json[]> {
  const result = await oracle.ask<{ seed: Json[] }>('render', {
    cluster,
    nodeLogging: values.nodeLogging ?? false,
    now: RENDER_NOW,
    apiServerURL: values.apiServerUrl,
    clusterDNSAddress: values.clusterDnsAddress,
    clusterCA: Buffer.from(values.caBundles.cluster).toString('base64'),
    clusterCASecretName: values.caBundles.clusterSecretName,
    kubeletCA: Buffer.from(values.caBundles.kubelet).toString('base64'),
    sshPublicKeys: values.sshPublicKeys ?? [],
    osExtension: {},
    ...(featureGates ? { featureGates } : {}),
    ...(values.registryCaBundle === undefined ? {} : { registryCABundle: values.registryCaBundle }),
  });
  return result.seed;
}
