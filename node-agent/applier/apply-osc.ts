import { resolve } from 'node:path';
import type { OperatingSystemConfig } from '../../api/index.js';
import { type Logger, silentLogger } from '../../runtime/logging.js';
import { writeContainerdConfig } from '../containerd/containerd-config-file.js';
import type { ContainerdTool } from '../containerd/containerd-tool.js';
import {
  probeAndWriteRegistries,
  removeDroppedRegistries,
  writeRegistries,
} from '../containerd/registry-files.js';
import type { RegistryProbeOptions } from '../containerd/registry-probe.js';
import type { DisruptionPolicy } from '../planner/disruption-policy.js';
import type { DriftDecision } from '../planner/drift-policy.js';
import { isEmptyPlan, type Plan } from '../planner/plan.js';
import type { ImageExtractor } from '../registry/image-extractor.js';
import type { Systemd } from '../systemd/systemd.js';
import type { ApplyBarrier } from './apply-barrier.js';
import { withApplyLock } from './apply-lock.js';
import { startingPoint } from './apply-start.js';
import { executeStep, type StepContext } from './execute-step.js';
import type { HostRoot } from './host-root.js';
import { writeLastApplied } from './last-applied.js';
import type { NodeDrain } from './node-drain.js';
import { prepareApply, removeStaleStaging } from './prepare.js';
import {
  type InFlightCommand,
  type Progress,
  type ProgressFile,
  removeProgress,
  writeProgress,
} from './progress-file.js';
import { ProgressJournal } from './progress-journal.js';
import { isUnitCommand, planSteps, type Step, stepId } from './steps.js';
import { commandOf, runCommandOnce } from './unit-command-once.js';

export interface ApplyOptions {
  readonly root: string;
  /** The osc.yaml bytes; last-applied-osc.yaml gets these (re-encoded for a v1.150.0 OSC). */
  readonly oscText: string;
  /** `oscText` already decoded by the caller (the OSC secret reader), so it is not parsed twice. */
  readonly osc?: OperatingSystemConfig;
  readonly systemd: Systemd;
  readonly images: ImageExtractor;
  readonly logger?: Logger;
  /**
   * What happens when gardener-node-agent.service changed. `exit` (the agent): the step is checked
   * off and apply returns; the restarted agent resumes the rest. `continue` (a one-shot `apply`):
   * the rest runs now and the result says a restart is due.
   */
  readonly onNodeAgentRestart?: 'exit' | 'continue';
  /** Test hook, called wherever a crash may happen; throwing from it simulates one. */
  readonly crashPoint?: (where: string) => void;
  /** Test hook at the same points: the apply waits there until it resolves (apply-barrier.ts). */
  readonly barrier?: ApplyBarrier;
  /** Cancels the apply at the next step boundary (and any image pull in progress). */
  readonly signal?: AbortSignal;
  /**
   * Least disruption (docs/least-disruption.md): the unit commands the decision for this policy
   * picks, kept in the persisted plan. Absent: every changed unit restarts, as upstream.
   */
  readonly disruptionPolicy?: DisruptionPolicy;
  /** The node's drain, for a plan with a DrainAndRestart; such a plan fails without it, before any write. */
  readonly drain?: NodeDrain;
  /** The node's lower-cased hostname, which `files[].hostName` is matched with (default: this machine's). */
  readonly hostName?: string;
  /** containerd, asked when the OSC configures it (`criConfig.containerd`, the v1.150.0 contract). */
  readonly containerd?: ContainerdTool;
  /** The agent's PATH for containerd's environment drop-in (default: this process's). */
  readonly agentPath?: string;
  /** Timings and the prober of registries' readiness probes (default: registry-probe.ts's). */
  readonly registryProbe?: RegistryProbeOptions;
  /**
   * Refresh from the node first (drift-refresh.ts): drift of the node from the last applied OSC is
   * decided by the policy's `drift` rules and repaired, reported or adopted; the result lists it.
   * `report-only`: detected and listed, never repaired (a rollout that has not permitted this node).
   */
  readonly drift?: 'repair' | 'report-only';
}

export type ApplyOutcome = 'up-to-date' | 'applied' | 'exit-for-node-agent-restart';

export interface ApplyResult {
  readonly outcome: ApplyOutcome;
  readonly plan: Plan;
  /** The plan was read back from the progress file of an earlier, unfinished apply. */
  readonly resumed: boolean;
  readonly stepsTotal: number;
  readonly stepsRun: number;
  readonly nodeAgentRestartRequired: boolean;
  /** With `drift` set: every drift found before planning, with the policy's decision. */
  readonly drift?: readonly DriftDecision[];
}

export interface StepFailure {
  readonly step: string;
  readonly error: Error;
}

/** Steps failed; the progress file keeps them for the next attempt. */
export class ApplyError extends Error {
  constructor(readonly failures: readonly StepFailure[]) {
    super(`apply failed:\n${failures.map((f) => `  - ${f.step}: ${f.error.message}`).join('\n')}`);
    this.name = 'ApplyError';
  }
}

const DRAIN_STEPS: ReadonlySet<Step['op']> = new Set([
  'cordon-node',
  'evict-pods',
  'wait-node-ready',
  'uncordon-node',
]);

export function applyOsc(options: ApplyOptions): Promise<ApplyResult> {
  return withApplyLock(resolve(options.root), () => applyNow(options));
}

async function applyNow(options: ApplyOptions): Promise<ApplyResult> {
  const logger = options.logger ?? silentLogger;
  // A simulated crash must end the apply like a real one, never count as a failed step.
  let crashed: unknown;
  const crash = async (where: string) => {
    try {
      options.crashPoint?.(where);
    } catch (e) {
      crashed = e;
      throw e;
    }
    await options.barrier?.(where, options.signal);
  };
  const start = await startingPoint(options, logger);
  const { host, checksum, nextHere, previous, progress, resumed, plan, refresh } = start;
  const { containerdConfig, registries, lastText, lastOsc } = start;
  const steps = planSteps(plan);
  const completed = new Set(resumed && progress ? progress.completed : []);
  const result = (
    outcome: ApplyOutcome,
    stepsRun: number,
    nodeAgentRestartRequired: boolean,
  ): ApplyResult => ({
    outcome,
    plan,
    resumed,
    stepsTotal: steps.length,
    stepsRun,
    nodeAgentRestartRequired,
    ...(options.drift ? { drift: refresh?.decisions ?? [] } : {}),
  });

  if (!resumed && isEmptyPlan(plan)) {
    await removeStaleStaging(host);
    if (containerdConfig) await writeContainerdConfig(host, containerdConfig);
    await writeRegistries(host, registries);
    await probeAndWriteRegistries(host, registries, { ...options.registryProbe, signal: options.signal });
    await removeDroppedRegistries(host, registries);
    if (previous.text !== lastText) await writeLastApplied(host, lastText, lastOsc);
    if (progress) await removeProgress(host);
    logger.info('Configuration on this node is up to date, nothing to be done');
    return result('up-to-date', 0, false);
  }

  const pending = steps.filter((step) => !completed.has(stepId(step)));
  if (!options.drain && pending.some((s) => DRAIN_STEPS.has(s.op)))
    throw new Error(
      'the plan drains the node (DrainAndRestart) and this apply has no access to the cluster: run it with the agent',
    );
  options.signal?.throwIfAborted();
  // Everything that can fail before the first write fails here, leaving the node as it was.
  const prepared = await prepareApply({
    host,
    plan,
    pending,
    osc: nextHere,
    images: options.images,
    tag: checksum,
    signal: options.signal,
    logger,
  });

  const journal = await persist(
    host,
    { oscChecksum: checksum, plan, completed: [...completed] },
    progress,
    resumed,
  );
  const commands = {
    interrupted: resumed && progress ? progress.inFlight : [],
    record: async (intent: InFlightCommand) => {
      await journal.intent(intent);
      await crash(`intent ${intent.step}`);
    },
    clear: (step: string) => journal.clear(step),
  };
  const ctx: StepContext = {
    host,
    plan,
    systemd: options.systemd,
    images: options.images,
    staged: prepared.staged,
    signal: options.signal,
    logger,
    drain: options.drain,
  };
  const failures: StepFailure[] = [];
  let stepsRun = 0;
  let nodeAgentRestartRequired = false;
  const checkOff = async (id: string) => {
    completed.add(id);
    await journal.done(id);
    await crash(`checked-off ${id}`);
  };

  // Registries with a readiness probe: probed while the steps run, awaited after them.
  const probeAbort = new AbortController();
  let probing: Promise<void> | undefined;
  let stepsDone = false;
  try {
    await crash('persisted');
    if (containerdConfig) await writeContainerdConfig(host, containerdConfig);
    await writeRegistries(host, registries);
    probing = probeAndWriteRegistries(host, registries, {
      ...options.registryProbe,
      signal: options.signal ? AbortSignal.any([options.signal, probeAbort.signal]) : probeAbort.signal,
    });
    for (const step of pending) {
      const id = stepId(step);
      options.signal?.throwIfAborted();
      await crash(`before ${id}`);
      stepsRun++;
      if (step.op === 'restart-node-agent') {
        // Checked off first: the restart is this process ending, it must not repeat in the next one.
        await checkOff(id);
        nodeAgentRestartRequired = true;
        logger.info('Unit gardener-node-agent.service changed, the node agent must restart');
        if (options.onNodeAgentRestart === 'exit')
          return result('exit-for-node-agent-restart', stepsRun, true);
        continue;
      }
      const failure = await run(step, ctx, commands, (e) => e === crashed);
      if (failure) {
        failures.push(failure);
        logger.error({ err: failure.error, step: id }, 'Step failed');
        if (!isUnitCommand(step)) throw new ApplyError(failures);
        continue;
      }
      await crash(`done ${id}`);
      await checkOff(id);
    }
    stepsDone = true;
  } finally {
    // an apply that ends early (an error, a crash, the agent's restart) leaves no probe running
    if (!stepsDone) probeAbort.abort();
    // A simulated crash ends the apply as a kill would, before any cleanup: what it leaves behind
    // is what the resumed apply must clean up (prepare.ts removes stale staging directories).
    // Closing the journal's descriptor changes nothing on disk.
    await journal.close();
    if (crashed === undefined) await prepared.cleanup(true);
  }
  if (failures.length > 0) {
    probeAbort.abort();
    throw new ApplyError(failures);
  }

  try {
    await probing;
  } catch (e) {
    throw new ApplyError([{ step: 'registry readiness probes', error: e as Error }]);
  }
  await removeDroppedRegistries(host, registries);
  await writeLastApplied(host, lastText, lastOsc);
  await crash('last-applied');
  await removeProgress(host);
  logger.info(
    {
      changedFiles: plan.files.write.length,
      deletedFiles: plan.files.delete.length,
      changedUnits: plan.units.write.length,
      deletedUnits: plan.units.delete.length,
    },
    'Successfully applied operating system config',
  );
  return result('applied', stepsRun, nodeAgentRestartRequired);
}

/**
 * Makes the plan durable before the first step: a resumed apply appends to its journal; any other
 * writes the progress file once and starts a journal for it, carrying over the intents of a
 * version-1 progress file it resumes.
 */
async function persist(
  host: HostRoot,
  file: ProgressFile,
  progress: Progress | undefined,
  resumed: boolean,
): Promise<ProgressJournal> {
  if (resumed && progress && progress.journal.validBytes > 0)
    return ProgressJournal.open(host, file.oscChecksum, progress.journal);
  await writeProgress(host, file);
  const journal = await ProgressJournal.open(host, file.oscChecksum, {
    completed: [],
    inFlight: [],
    validBytes: 0,
  });
  if (resumed && progress) for (const intent of progress.inFlight) await journal.intent(intent);
  return journal;
}

async function run(
  step: Step,
  ctx: StepContext,
  journal: Parameters<typeof runCommandOnce>[2]['journal'],
  isCrash: (error: unknown) => boolean,
): Promise<StepFailure | undefined> {
  try {
    const target = commandOf(step);
    if (target) {
      await runCommandOnce(step, target, { ...ctx, journal, call: () => executeStep(step, ctx) });
    } else {
      await executeStep(step, ctx);
    }
    return undefined;
  } catch (e) {
    if (isCrash(e)) throw e;
    return { step: stepId(step), error: e instanceof Error ? e : new Error(String(e)) };
  }
}
