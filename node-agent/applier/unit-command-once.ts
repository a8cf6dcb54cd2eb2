/**
 * Restart and stop exactly once, even across a crash. Before the call, what systemd says about
 * the unit is recorded with the intent in the progress file; a run that finds the intent of an
 * interrupted predecessor asks systemd again and skips the call if it already took effect
 * (command-effect.ts), and reports it as failed if its new invocation ended `failed`. A call that
 * failed (rather than being cut off) clears its intent, so it is retried as before. enable, disable and daemon-reload change no running unit and may repeat.
 */
import type { Logger } from '../../runtime/logging.js';
import type { Systemd } from '../systemd/systemd.js';
import { interruptedCommandOutcome, type UnitCommand } from './command-effect.js';
import { type HostRoot, pathExists } from './host-root.js';
import type { InFlightCommand } from './progress-file.js';
import { type Step, stepId } from './steps.js';

export interface CommandTarget {
  readonly command: UnitCommand;
  readonly unit: string;
}

/** The restart or stop a step asks for, or undefined for every other step. */
export function commandOf(step: Step): CommandTarget | undefined {
  if (step.op === 'restart') return { command: 'restart', unit: step.unit };
  if (step.op === 'stop' || step.op === 'stop-removed-unit') return { command: 'stop', unit: step.unit };
  return undefined;
}

/** Whether the step calls systemd at all now (a restart of an absent OS unit, a stop of a gone one, do not). */
async function callsSystemd(step: Step, host: HostRoot): Promise<boolean> {
  if (step.op === 'restart' && step.ifUnitExists) return host.unitExists(step.unit);
  if (step.op === 'stop-removed-unit') return pathExists(host.unitFile(step.unit));
  return true;
}

export interface CommandJournal {
  /** The intents interrupted runs left in force (at most one per step). */
  readonly interrupted: readonly InFlightCommand[];
  /** Persists the intent before the call is made. */
  record(intent: InFlightCommand): Promise<void>;
  /** Withdraws the intent of `step`: its call failed (rather than being cut off). */
  clear(step: string): Promise<void>;
}

export type CommandOutcome = 'ran' | 'already-done' | 'not-needed';

export async function runCommandOnce(
  step: Step,
  target: CommandTarget,
  o: { host: HostRoot; systemd: Systemd; journal: CommandJournal; logger: Logger; call: () => Promise<void> },
): Promise<CommandOutcome> {
  const id = stepId(step);
  if (!(await callsSystemd(step, o.host))) return 'not-needed';
  const interrupted = o.journal.interrupted.find((i) => i.step === id);
  if (interrupted) {
    const now = await o.systemd.unitStatus(target.unit);
    const outcome = interruptedCommandOutcome(target.command, interrupted.before, now);
    if (outcome === 'failed') {
      await o.journal.clear(id);
      throw new Error(
        `${target.command} of ${target.unit} failed: the unit is ${now.activeState} (${now.subState}) after the ${target.command} the agent was interrupted in`,
      );
    }
    if (outcome === 'done') {
      o.logger.info(
        { unit: target.unit, command: target.command, invocationId: now.invocationId },
        'Unit command took effect before the agent was interrupted, not repeating it',
      );
      return 'already-done';
    }
  }
  const before = await o.systemd.unitStatus(target.unit);
  await o.journal.record({ step: id, unit: target.unit, before });
  try {
    await o.call();
  } catch (e) {
    await o.journal.clear(id);
    throw e;
  }
  return 'ran';
}
