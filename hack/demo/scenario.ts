/**
 * The demo's scenario, shared by `npm run demo` (hack/demo/main.ts) and test/e2e: one shoot on a
 * local landscape (seed and shoot kube-apiserver, the controller-manager in direct mode with
 * os-local, one real gardener-node-agent process per node) taken through four named steps:
 *
 * 1. `runLegacyNodes` (steps/legacy.ts): the controller-manager runs with
 *    `UseGardenerNodeAgent=false`; the nodes are registered and carry the legacy
 *    cloud-config-downloader's state in their roots;
 * 2. `migrateToAgent` (steps/migration.ts) = every node's initial apply: the gate goes on; each
 *    node runs node-init's steps, as the legacy executor would start them on a real node; the
 *    agents obtain their own identity with the downloader's token, remove the downloader, apply their pool's
 *    OSC and report; the legacy resources go once every node reported;
 * 3. `rollOutKubeletChange` (steps/rollout.ts): a kubelet configuration change let out by the
 *    rollout gate in waves per pool; with `breakRollout`, `breakKubeletChange`
 *    (steps/bad-rollout.ts): a bad one, halted at the canaries, then its fix;
 * 4. `probeCompromisedNodes` (steps/compromised-node.ts): each node's own identity (a client
 *    certificate naming it, obtained during the migration) against the rest of the shoot: its own
 *    objects allowed, everything that would harm other nodes denied;
 *
 * then `summarize` (steps/summary.ts). One shoot can only be migrated once, and its first agent
 * apply is the migration, so the initial apply and the migration are the same step and come first;
 * the rollout and the probes then run on the migrated fleet. `setUp` and `tearDown`
 * (scenario-run.ts) bracket the steps: whatever happens (failure, the signal), every process, API
 * server and temp dir is removed before runScenario returns or throws.
 */
import type { ScenarioOptions, ScenarioResult } from './scenario-result.js';
import { setUp, tearDown } from './scenario-run.js';
import { breakKubeletChange } from './steps/bad-rollout.js';
import { probeCompromisedNodes } from './steps/compromised-node.js';
import { runLegacyNodes } from './steps/legacy.js';
import { migrateToAgent } from './steps/migration.js';
import { rollOutKubeletChange } from './steps/rollout.js';
import { summarize } from './steps/summary.js';

export * from './scenario-result.js';
export { reapKilledRuns, type ScenarioRun, setUp, tearDown } from './scenario-run.js';
export type { CompromisedNodeOutcome } from './steps/compromised-node.js';
export type { MigrationOutcome } from './steps/migration.js';
export type { RolloutOutcome } from './steps/rollout.js';
export {
  breakKubeletChange,
  migrateToAgent,
  probeCompromisedNodes,
  rollOutKubeletChange,
  runLegacyNodes,
  summarize,
};

export async function runScenario(o: ScenarioOptions): Promise<ScenarioResult> {
  const run = await setUp(o);
  try {
    await runLegacyNodes(run);
    const migration = await migrateToAgent(run);
    const rollout = o.breakRollout ? await breakKubeletChange(run) : await rollOutKubeletChange(run);
    const limits = await probeCompromisedNodes(run);
    return await summarize(run, migration, rollout, limits);
  } finally {
    await tearDown(run);
  }
}
