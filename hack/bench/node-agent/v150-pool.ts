/**
 * The v1.150.0 pool beside the v1.91.4 one, in the same run and the same small cluster: a second
 * agent process for a Node of the same pool as gardenlet v1.150.0 renders it, measured as the
 * first is (first apply, idle RSS, the small cluster's updates to the last systemd call) and then
 * stopped, before the cluster grows. The first agent keeps running, idle, meanwhile: its own
 * figures were all taken before this one started.
 *
 * A v1.150.0 OSC hands containerd's configuration to the agent, which asks containerd for its
 * default configuration and version; under the test root that is the recorded containerd 1.7 of
 * hack/node-agent-doubles (`--containerd recorded:VERSION:FILE`), whose restart requests go to the
 * recording systemd like every other unit's.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTAINERD_17_DEFAULT } from '../../node-agent-doubles/fake-containerd.js';
import type { Cleanups } from '../support/run.js';
import { progress } from '../support/run.js';
import { POOL_V150, poolDir } from './bench-pool.js';
import { type Cluster, deployWhatTheSeedDeploys, watchAsABystander } from './landscape.js';
import {
  type AgentProgram,
  agentProcess,
  applyUpdates,
  measureIdleMemory,
  Phases,
  startUntilFirstApply,
  type Updates,
} from './measure.js';

/** The version the recorded containerd reports (Debian's 1.7.23, as `ctr version` prints it). */
export const RECORDED_CONTAINERD_VERSION = '1.7.23~ds2';

export interface V150Figures {
  readonly secretName: string;
  readonly firstApplyMs: number;
  readonly startsForFirstApply: number;
  readonly idle: Awaited<ReturnType<typeof measureIdleMemory>>;
  readonly smallUpdates: Updates;
  readonly exitCode: number | null;
  /** What the first apply did with containerd: the size of config.toml, its restarts. */
  readonly containerd: { readonly configTomlBytes: number; readonly restarts: number };
}

const CONTAINERD_UNIT = 'containerd.service';

export async function measureV150Pool(
  program: AgentProgram,
  cluster: Cluster,
  dir: string,
  runId: string,
  cleanups: Cleanups,
): Promise<V150Figures> {
  progress('v1.150.0 pool: deploying what the seed deploys for its node');
  const node = await deployWhatTheSeedDeploys(cluster, dir, runId, cleanups, POOL_V150);
  const seen = await watchAsABystander(cluster, node, cleanups);
  const defaults = join(poolDir(dir, POOL_V150), 'containerd-config-default.toml');
  writeFileSync(defaults, CONTAINERD_17_DEFAULT);
  const agent = agentProcess(program, node, poolDir(dir, POOL_V150), cleanups, [
    '--containerd',
    `recorded:${RECORDED_CONTAINERD_VERSION}:${defaults}`,
  ]);
  // its own phases: the report's requests per phase are the first agent's
  const phases = new Phases();
  const first = await startUntilFirstApply(agent, node, seen, phases);
  const containerd = {
    configTomlBytes: statSync(join(node.root, 'etc/containerd/config.toml')).size,
    restarts: node.recorder.ops.filter((op) => op.op === 'restart' && op.unit === CONTAINERD_UNIT).length,
  };
  const idle = await measureIdleMemory(agent, phases);
  const smallUpdates = await applyUpdates('v1.150.0 pool, small cluster', {
    agent,
    node,
    cluster,
    seen,
    phases,
  });
  progress('v1.150.0 pool: stopping its agent (SIGTERM)');
  const exitCode = await agent.stop();
  return {
    secretName: node.secretName,
    firstApplyMs: first.firstApplyMs,
    startsForFirstApply: first.starts,
    idle,
    smallUpdates,
    exitCode,
    containerd,
  };
}
