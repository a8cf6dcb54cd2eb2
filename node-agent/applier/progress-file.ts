/**
 * The apply progress file, `/var/lib/gardener-node-agent/apply-progress.yaml` (0600): the plan of
 * the apply in flight, written before its first step and rewritten atomically after every step.
 * An apply that dies resumes from it; it is removed once last-applied-osc.yaml is written.
 *
 *   version: 1                       # format version
 *   oscChecksum: <sha256 hex>        # of the osc.yaml bytes being applied
 *   plan: <Plan>                     # as `gardener-node-agent plan` prints it
 *   completed:                       # ids of finished steps (steps.ts stepId), in step order
 *   - write-file /etc/foo
 *   - restart kubelet.service
 *   inFlight:                        # a restart or stop asked of systemd and not yet checked off
 *     step: restart containerd.service
 *     unit: containerd.service
 *     before: <UnitStatus>           # what systemd said about the unit right before the call
 *
 * Same checksum on the next apply: resume with the steps not completed; an `inFlight` command is
 * repeated only if systemd's state shows it did not take effect (command-effect.ts). Another checksum (a new OSC
 * arrived meanwhile): plan afresh, with the old plan passed as `interrupted` so nothing it may have
 * done is left behind.
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
import type { Plan } from '../planner/plan.js';
import type { UnitStatus } from '../systemd/unit-status.js';
import type { HostRoot } from './host-root.js';
import { readTextIfExists } from './last-applied.js';

export const PROGRESS_FILE = `${PATH.nodeAgentBaseDir}/apply-progress.yaml`;
const HEADER = '# Progress of the apply in flight (gardener-node-agent). Do not edit.\n';

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
      command: z.enum(['restart', 'stop']),
      ifUnitExists: z.boolean().optional(),
    }),
  ),
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

const ProgressSchema = z.object({
  version: z.literal(1),
  oscChecksum: z.string(),
  plan: PlanSchema,
  completed: z.array(z.string()),
  inFlight: z.object({ step: z.string(), unit: z.string(), before: UnitStatusSchema }).optional(),
});

/** A unit command recorded before its call: the step, and the unit as systemd saw it then. */
export interface InFlightCommand {
  readonly step: string;
  readonly unit: string;
  readonly before: UnitStatus;
}

export interface Progress {
  readonly version: 1;
  readonly oscChecksum: string;
  readonly plan: Plan;
  readonly completed: readonly string[];
  readonly inFlight?: InFlightCommand;
}

export function encodeProgress(progress: Progress): string {
  return HEADER + stringifyYaml(progress);
}

/** Throws naming the field when the file is not a progress file of this format. */
export function decodeProgress(text: string): Progress {
  const parsed = ProgressSchema.safeParse(parseYaml(text));
  if (!parsed.success)
    throw new Error(`invalid progress file:\n${formatFieldErrors(fieldErrorsFromZod(parsed.error))}`);
  return parsed.data;
}

export async function readProgress(host: HostRoot): Promise<Progress | undefined> {
  const text = await readTextIfExists(host.path(PROGRESS_FILE));
  return text === undefined ? undefined : decodeProgress(text);
}

export async function writeProgress(host: HostRoot, progress: Progress): Promise<void> {
  const path = host.path(PROGRESS_FILE);
  await host.prepareParent(path);
  await writeFileAtomic(path, encodeProgress(progress), 0o600);
}

export async function removeProgress(host: HostRoot): Promise<void> {
  await rm(host.path(PROGRESS_FILE), { force: true });
}
