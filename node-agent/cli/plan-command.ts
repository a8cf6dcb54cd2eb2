/**
 * `plan --next B.yaml [--previous A.yaml | --root DIR [--systemd SPEC]] [-o text|yaml|json|raw]
 * [--exit-code]`: what an apply from A to B would do, as `gardener-osc plan` shows it per pool: a
 * summary line with the cause of every unit action, then decoded diffs with octal modes (`-o raw`:
 * the Plan as the applier persists it). With `--root` the previous OSC is the node's
 * last-applied-osc.yaml and the node is read first, like `terraform plan` refreshes: its drift is
 * listed with the action the drift policy takes, and the plan includes the repairs, exactly as
 * `apply` of B to that root would run them. Nothing is written.
 */
import { type Command, Option } from 'commander';
import { PATH, stringifyYaml } from '../../api/index.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { ExitStatus } from '../../runtime/cli/exit-status.js';
import { stdinConflict } from '../../runtime/cli/input-file.js';
import { silentLogger } from '../../runtime/logging.js';
import { type NodeRefresh, refreshFromNode } from '../applier/drift-refresh.js';
import { HostRoot } from '../applier/host-root.js';
import { readLastAppliedText } from '../applier/last-applied.js';
import { driftViews, formatDriftText } from '../plan-view/drift-view.js';
import {
  anyChange,
  EXIT_CHANGES,
  formatPlan,
  type OscDocument,
  oscDisplayName,
  PLAN_FORMATS,
  type PlanFormat,
  poolView,
} from '../plan-view/index.js';
import { computePlan } from '../planner/compute-plan.js';
import type { DisruptionPolicy } from '../planner/disruption-policy.js';
import { withDriftRepairs } from '../planner/drift-repair.js';
import { computeLeastDisruptionPlan } from '../planner/least-disruption-plan.js';
import type { Plan } from '../planner/plan.js';
import { systemdFrom } from './backends.js';
import type { CliIo } from './cli-io.js';
import {
  agentDisruptionPolicy,
  disruptionPolicyFrom,
  disruptionPolicyOption,
} from './disruption-policy-flag.js';
import { checkedRoot } from './host-root-guard.js';
import { decodeOscText, readOsc } from './read-osc.js';

interface PlanFlags {
  readonly previous?: string;
  readonly next: string;
  readonly root?: string;
  readonly systemd?: string;
  readonly format: PlanFormat | 'raw';
  readonly exitCode?: boolean;
  readonly disruptionPolicy?: string;
}

interface NodeState {
  readonly previous?: OscDocument;
  readonly refresh?: NodeRefresh;
}

async function readNode(
  flags: PlanFlags,
  policy: DisruptionPolicy | undefined,
  io: CliIo,
): Promise<NodeState> {
  if (flags.root === undefined) return {};
  const root = checkedRoot(flags.root, io.env);
  const host = new HostRoot(root);
  const text = await readLastAppliedText(host);
  if (text === undefined) return {};
  const osc = decodeOscText('--root', host.path(PATH.lastAppliedOsc), text);
  // a temp root without --systemd: the file system alone (systemd would be this machine's)
  const systemd =
    flags.systemd !== undefined || root === '/'
      ? systemdFrom(flags.systemd, root, io, silentLogger)
      : undefined;
  const refresh = await refreshFromNode({
    host,
    previous: osc,
    ...(systemd ? { systemd } : {}),
    rules: policy?.drift,
    recordAdoptions: false,
  });
  return { previous: { text, osc: refresh.observed }, refresh };
}

export async function planCommand(flags: PlanFlags, io: CliIo): Promise<void> {
  const conflict = stdinConflict({ '--previous': flags.previous, '--next': flags.next });
  if (conflict) throw new UsageError(conflict);
  if (flags.previous !== undefined && flags.root !== undefined)
    throw new UsageError(
      "--previous and --root exclude each other: --root reads the node's last applied OSC",
    );
  const next = readOsc('--next', flags.next, io.readStdin);
  // with --root the node's policy file counts, as for `apply` to that root
  const policy =
    flags.root === undefined
      ? disruptionPolicyFrom(flags.disruptionPolicy, io.readStdin)
      : agentDisruptionPolicy(flags.disruptionPolicy, checkedRoot(flags.root, io.env), io.readStdin);
  const node = await readNode(flags, policy, io);
  const previous =
    flags.previous === undefined ? node.previous : readOsc('--previous', flags.previous, io.readStdin);
  const refine = (plan: Plan) => withDriftRepairs(plan, node.refresh?.repairs ?? [], next.osc);
  if (flags.format === 'raw') {
    const plan = policy
      ? computeLeastDisruptionPlan(previous?.osc, next.osc, { policy })
      : computePlan(previous?.osc, next.osc);
    io.stdout.write(stringifyYaml(refine(plan)));
    return;
  }
  const view = { pools: [poolView(oscDisplayName(next.osc), previous, next, policy, refine)] };
  const drift = node.refresh && driftViews(node.refresh.decisions);
  if (!drift) io.stdout.write(formatPlan(view, flags.format));
  else if (flags.format === 'text') io.stdout.write(formatDriftText(drift) + formatPlan(view, 'text'));
  else io.stdout.write(formatPlan({ drift, ...view } as typeof view, flags.format));
  const repairs = (node.refresh?.repairs.length ?? 0) > 0;
  if (flags.exitCode && (anyChange(view) || repairs)) throw new ExitStatus(EXIT_CHANGES);
}

export function addPlanCommand(program: Command, io: CliIo): void {
  program
    .command('plan')
    .description(
      'show what an apply from one osc.yaml to the next would do, and why (no --previous: a first apply)',
    )
    .option('--previous <file>', 'the osc.yaml applied last ("-": standard input)')
    .requiredOption('--next <file>', 'the osc.yaml to apply ("-": standard input)')
    .option(
      '--root <dir>',
      "the node's host root: its last applied OSC is the previous one, and its drift is shown and planned",
    )
    .option(
      '--systemd <spec>',
      'with --root: the systemd asked for enablement and unit state (default: systemctl for /, none otherwise)',
    )
    .addOption(
      new Option(
        '-o, --format <format>',
        'text for people; yaml or json for tools; raw: the Plan the applier persists',
      )
        .choices([...PLAN_FORMATS, 'raw'])
        .default('text'),
    )
    .option('--exit-code', 'exit 3 when the OSCs differ or drift is repaired, 0 otherwise (for CI)')
    .addOption(disruptionPolicyOption())
    .action((flags: PlanFlags) => planCommand(flags, io));
}
