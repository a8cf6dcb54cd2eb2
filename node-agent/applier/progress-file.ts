/**
 * The apply progress file, `/var/lib/gardener-node-agent/apply-progress.yaml` (0600): the plan of
 * the apply in flight, written atomically once, before its first step. What happens to the steps
 * after that is appended to its journal (progress-journal.ts), so an apply of N steps writes the
 * plan once and N short lines, not the plan N times. An apply that dies resumes from both; they are
 * removed once last-applied-osc.yaml is written.
 *
 *   version: 2                       # format version (1: no journal, `completed` and `inFlight`
 *                                    # rewritten here after every step; still read)
 *   oscChecksum: <sha256 hex>        # of the osc.yaml bytes being applied
 *   plan: <Plan>                     # as `gardener-node-agent plan` prints it
 *   completed:                       # steps already finished when this file was written
 *   - write-file /etc/foo            # (a resumed apply of a version-1 file), usually empty
 *
 * Same checksum on the next apply: resume with the steps not completed; an intent still in force
 * (a restart or stop asked of systemd and not checked off) is repeated only if systemd's state
 * shows it did not take effect (command-effect.ts). Another checksum (a new OSC arrived
 * meanwhile): plan afresh, with the old plan passed as `interrupted` so nothing it may have done
 * is left behind.
 */
import { rm } from 'node:fs/promises';
import * as z from 'zod';
import {
  fieldErrorsFromZod,
  formatFieldErrors,
  PATH,
  parseYaml,
  stringifyYaml,
  TolerantOsc,
} from '../../api/index.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { DISRUPTION_ACTIONS } from '../planner/disruption-action.js';
import type { Plan } from '../planner/plan.js';
import type { UnitStatus } from '../systemd/unit-status.js';
import type { HostRoot } from './host-root.js';
import { readTextIfExists } from './last-applied.js';
import { type JournalState, readJournal, removeJournal } from './progress-journal.js';

export const PROGRESS_FILE = `${PATH.nodeAgentBaseDir}/apply-progress.yaml`;
const HEADER = '# Progress of the apply in flight (gardener-node-agent). Do not edit.\n';

const DisruptionActionSchema = z.enum(DISRUPTION_ACTIONS);

const UnitDisruptionSchema = z.object({
  unit: z.string(),
  action: DisruptionActionSchema,
  baseline: DisruptionActionSchema,
  causes: z.array(
    z.object({
      action: DisruptionActionSchema,
      source: z.string(),
      path: z.string().optional(),
      why: z.string(),
      rule: z.enum(['semantic-diff', 'policy-unit', 'policy-path', 'default', 'fallback']),
    }),
  ),
});

const PlanSchema = z.object({
  files: z.object({ write: z.array(TolerantOsc.File), delete: z.array(z.string()) }),
  units: z.object({
    write: z.array(
      z.object({
        name: z.string(),
        content: z.string().optional(),
        dropIns: z.object({
          write: z.array(TolerantOsc.DropIn),
          delete: z.array(z.string()),
          removeDirectory: z.boolean(),
        }),
      }),
    ),
    delete: z.array(z.object({ name: z.string(), ownedByAgent: z.boolean(), dropIns: z.array(z.string()) })),
  }),
  enable: z.array(z.string()),
  disable: z.array(z.string()),
  daemonReload: z.boolean(),
  mustRestartNodeAgent: z.boolean(),
  commands: z.array(
    z.object({
      unit: z.string(),
      command: z.enum(['restart', 'stop', 'reload']),
      ifUnitExists: z.boolean().optional(),
      drain: z.boolean().optional(),
    }),
  ),
  disruption: z.array(UnitDisruptionSchema).optional(),
});

const UnitStatusSchema = z.object({
  loadState: z.string(),
  activeState: z.string(),
  subState: z.string(),
  type: z.string().optional(),
  result: z.string().optional(),
  invocationId: z.string(),
  activeEnterTimestampMonotonic: z.number(),
  inactiveEnterTimestampMonotonic: z.number(),
  inactiveExitTimestampMonotonic: z.number(),
});

const InFlightSchema = z.object({ step: z.string(), unit: z.string(), before: UnitStatusSchema });

const ProgressSchema = z.union([
  z.object({
    version: z.literal(2),
    oscChecksum: z.string(),
    plan: PlanSchema,
    completed: z.array(z.string()),
  }),
  z.object({
    version: z.literal(1),
    oscChecksum: z.string(),
    plan: PlanSchema,
    completed: z.array(z.string()),
    inFlight: InFlightSchema.optional(),
  }),
]);

/** A unit command recorded before its call: the step, and the unit as systemd saw it then. */
export interface InFlightCommand {
  readonly step: string;
  readonly unit: string;
  readonly before: UnitStatus;
}

/** What apply-progress.yaml holds. */
export interface ProgressFile {
  readonly oscChecksum: string;
  readonly plan: Plan;
  /** Steps finished before this file was written. */
  readonly completed: readonly string[];
}

/** The progress file with its journal read into it. */
export interface Progress extends ProgressFile {
  /** Every step checked off, in the order it was. */
  readonly completed: readonly string[];
  /** Restarts and stops asked of systemd and not checked off since. */
  readonly inFlight: readonly InFlightCommand[];
  /** What the journal held (empty for a version-1 file): a resumed apply appends to it. */
  readonly journal: JournalState;
}

export function encodeProgress(progress: ProgressFile): string {
  return (
    HEADER +
    stringifyYaml({
      version: 2,
      oscChecksum: progress.oscChecksum,
      plan: progress.plan,
      completed: progress.completed,
    })
  );
}

/** Throws naming the field when the file is not a progress file of a known format. */
export function decodeProgress(
  text: string,
): ProgressFile & { readonly version: 1 | 2; readonly inFlight?: InFlightCommand } {
  const parsed = ProgressSchema.safeParse(parseYaml(text));
  if (!parsed.success)
    throw new Error(`invalid progress file:\n${formatFieldErrors(fieldErrorsFromZod(parsed.error))}`);
  return parsed.data;
}

export async function readProgress(host: HostRoot): Promise<Progress | undefined> {
  const text = await readTextIfExists(host.path(PROGRESS_FILE));
  if (text === undefined) return undefined;
  const file = decodeProgress(text);
  const { version: _, ...rest } = file;
  if (file.version === 1) {
    const inFlight = file.inFlight ? [file.inFlight] : [];
    return { ...rest, inFlight, journal: { completed: [], inFlight: [], validBytes: 0 } };
  }
  const journal = await readJournal(host, file.oscChecksum);
  return {
    ...rest,
    completed: [...file.completed, ...journal.completed],
    inFlight: journal.inFlight,
    journal,
  };
}

export async function writeProgress(host: HostRoot, progress: ProgressFile): Promise<void> {
  const path = host.path(PROGRESS_FILE);
  await host.prepareParent(path);
  await writeFileAtomic(path, encodeProgress(progress), 0o600);
}

/** The progress file first: a journal without it is ignored, and replaced by the next apply. */
export async function removeProgress(host: HostRoot): Promise<void> {
  await rm(host.path(PROGRESS_FILE), { force: true });
  await removeJournal(host);
}
