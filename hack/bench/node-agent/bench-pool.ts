/**
 * The worker pools the agent benchmark runs an agent for: the example's first pool as gardenlet
 * v1.91.4 renders it (examples/cluster.yaml, the benchmark's figures since it exists) and, in the
 * same run, the same pool as gardenlet v1.150.0 renders it (examples/cluster-v1.150.yaml), whose
 * OSC hands containerd's configuration to the agent (docs/compatibility.md, the V150 entries).
 */
import { join } from 'node:path';
import type { GardenerVersion } from '../../../api/index.js';
import { EXAMPLE_CLUSTER_V150_FILE } from '../../landscape/example-cluster.js';

export interface BenchPool {
  readonly gardenerVersion: GardenerVersion;
  /** The Cluster to render; undefined: the render's default, examples/cluster.yaml with its values. */
  readonly clusterFile?: string;
  /** Where the agent's root, images, config and systemd record go, under the run's temp dir. */
  readonly subdir: string;
  /** Added to the Node's name, so both pools' Nodes, Leases and identities differ. */
  readonly nodeSuffix: string;
  /**
   * Whether this pool's rendered RBAC and admission policies are deployed: the second pool's are
   * objects of the same names, already deployed with the first pool's.
   */
  readonly deployAuthorization: boolean;
  /**
   * Labels the Node carries from the start. The v1.150.0 agent adds `node-role.kubernetes.io/worker`
   * to its Node at the first apply (node-agent/controllers/operatingsystemconfig/node-labels.ts),
   * which the admission policy deployed with the v1.91.4 pool forbids: a shoot has one gardenlet,
   * so that never meets a v1.150.0 agent outside this benchmark. With the label in place the agent
   * has nothing to add.
   */
  readonly nodeLabels: Readonly<Record<string, string>>;
}

export const POOL_V191: BenchPool = {
  gardenerVersion: 'v1.91.4',
  subdir: '',
  nodeSuffix: '',
  deployAuthorization: true,
  nodeLabels: {},
};

export const POOL_V150: BenchPool = {
  gardenerVersion: 'v1.150.0',
  clusterFile: EXAMPLE_CLUSTER_V150_FILE,
  subdir: 'v1.150',
  nodeSuffix: '-v150',
  deployAuthorization: false,
  nodeLabels: { 'node-role.kubernetes.io/worker': '' },
};

export const poolDir = (dir: string, pool: BenchPool) => (pool.subdir ? join(dir, pool.subdir) : dir);
