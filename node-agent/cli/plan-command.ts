/**
 * `plan --next B.yaml [--previous A.yaml] [-o text|yaml|json|raw] [--exit-code]`: what an apply from
 * A to B would do, as `gardener-osc plan` shows it per pool: a summary line with the cause of every
 * unit action, then decoded diffs with octal modes (`-o raw`: the Plan as the applier persists it).
 */
import { type Command, Option } from 'commander';
import { stringifyYaml } from '../../api/index.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { ExitStatus } from '../../runtime/cli/exit-status.js';
import { stdinConflict } from '../../runtime/cli/input-file.js';
import {
  anyChange,
  EXIT_CHANGES,
  formatPlan,
  oscDisplayName,
  PLAN_FORMATS,
  type PlanFormat,
  poolView,
} from '../plan-view/index.js';
import { computePlan } from '../planner/compute-plan.js';
import { computeLeastDisruptionPlan } from '../planner/least-disruption-plan.js';
import type { CliIo } from './cli-io.js';
import { disruptionPolicyFrom, disruptionPolicyOption } from './disruption-policy-flag.js';
import { readOsc } from './read-osc.js';

interface PlanFlags {
  readonly previous?: string;
  readonly next: string;
  readonly format: PlanFormat | 'raw';
  readonly exitCode?: boolean;
  readonly disruptionPolicy?: string;
}

export function planCommand(flags: PlanFlags, io: CliIo): void {
  const conflict = stdinConflict({ '--previous': flags.previous, '--next': flags.next });
  if (conflict) throw new UsageError(conflict);
  const previous =
    flags.previous === undefined ? undefined : readOsc('--previous', flags.previous, io.readStdin);
  const next = readOsc('--next', flags.next, io.readStdin);
  const policy = disruptionPolicyFrom(flags.disruptionPolicy, io.readStdin);
  if (flags.format === 'raw') {
    const plan = policy
      ? computeLeastDisruptionPlan(previous?.osc, next.osc, { policy })
      : computePlan(previous?.osc, next.osc);
    io.stdout.write(stringifyYaml(plan));
    return;
  }
  const view = { pools: [poolView(oscDisplayName(next.osc), previous, next, policy)] };
  io.stdout.write(formatPlan(view, flags.format));
  if (flags.exitCode && anyChange(view)) throw new ExitStatus(EXIT_CHANGES);
}

export function addPlanCommand(program: Command, io: CliIo): void {
  program
    .command('plan')
    .description(
      'show what an apply from one osc.yaml to the next would do, and why (no --previous: a first apply)',
    )
    .option('--previous <file>', 'the osc.yaml applied last ("-": standard input)')
    .requiredOption('--next <file>', 'the osc.yaml to apply ("-": standard input)')
    .addOption(
      new Option(
        '-o, --format <format>',
        'text for people; yaml or json for tools; raw: the Plan the applier persists',
      )
        .choices([...PLAN_FORMATS, 'raw'])
        .default('text'),
    )
    .option('--exit-code', 'exit 3 when the OSCs differ, 0 when they do not (for CI)')
    .addOption(disruptionPolicyOption())
    .action((flags: PlanFlags) => planCommand(flags, io));
}
