/**
 * `gardener-osc plan --cluster A.yaml --next B.yaml`: what changing a shoot from A to B does to
 * its nodes, per worker pool, before anything rolls out: which units restart and why, every file
 * change decoded, whether the agent restarts itself, and how the change reaches the nodes.
 */
import { type Command, Option } from 'commander';
import { DEFAULT_GARDENER_VERSION, GARDENER_VERSION_ANNOTATION, GARDENER_VERSIONS } from '../api/index.js';
import {
  anyChange,
  EXIT_CHANGES,
  formatPlan,
  PLAN_FORMATS,
  type PlanFormat,
  type PlanView,
} from '../node-agent/plan-view/index.js';
import type { DisruptionPolicy } from '../node-agent/planner/disruption-policy.js';
import { UsageError } from '../runtime/cli/exit-codes.js';
import { ExitStatus } from '../runtime/cli/exit-status.js';
import { stdinConflict } from '../runtime/cli/input-file.js';
import type { CliLogLevel, Notices } from '../runtime/cli/warnings.js';
import { type RolloutSettings, RolloutSettingsSchema } from '../seed/manager/config.js';
import { loadControllerManagerConfiguration } from './controller-manager-command.js';
import { disruptionPolicyOption, readDisruptionPolicy } from './plan/disruption-policy-input.js';
import { planFleet, type RenderedShoot } from './plan/fleet-plan.js';
import { poolOscs } from './plan/pool-oscs.js';
import { gatedRollout } from './plan/rollout.js';
import { DEFAULT_NOW, type RenderSource, renderSource } from './render-command.js';
import { parseYamlInput, readInput } from './render-input.js';

export interface PlanOptions {
  readonly cluster: string;
  readonly next: string;
  /** A file, or `false` for `--no-values`: placeholders for both, without the warning. */
  readonly values?: string | false;
  readonly nextValues?: string;
  readonly format: PlanFormat;
  readonly exitCode?: boolean;
  readonly strict?: boolean;
  /** The controller-manager configuration whose `controllers.rollout` the plan shows. */
  readonly config?: string;
  /** The contract of both renders; wins over each Cluster's annotation. */
  readonly gardenerVersion?: string;
  /** gardenlet's feature gates of both renders (`--feature-gates`, as `render` reads them). */
  readonly featureGates?: string;
  readonly logLevel?: CliLogLevel;
  /**
   * `defaults` (absent), `none` or a DisruptionPolicy file: the plan as agents run with it
   * (docs/least-disruption.md).
   */
  readonly disruptionPolicy?: string;
}

/** The two Clusters (and values) to compare, parsed, from files or from memory. */
export interface PlanSources {
  readonly current: Pick<
    RenderSource,
    'cluster' | 'clusterName' | 'values' | 'valuesName' | 'placeholderValues'
  >;
  readonly next: Pick<
    RenderSource,
    'cluster' | 'clusterName' | 'values' | 'valuesName' | 'placeholderValues'
  >;
  readonly strict?: boolean;
  /** The contract of both renders (`--gardener-version`); else each Cluster's annotation, else the default. */
  readonly gardenerVersion?: string;
  /** gardenlet's feature gates of both renders (`--feature-gates`). */
  readonly featureGates?: string;
  /** The rollout gate's settings (default: the controller-manager's defaults). */
  readonly rollout?: RolloutSettings;
  /** Absent: no policy, every changed unit restarts (`--disruption-policy none`). */
  readonly disruptionPolicy?: DisruptionPolicy;
}

/** `namespace/name` of the shoot a rendered Cluster holds. */
const shootName = (shoot: RenderedShoot): string =>
  `${shoot.cluster.shoot.metadata.namespace ?? ''}/${shoot.cluster.shoot.metadata.name ?? ''}`;

function renderShoot(
  source: PlanSources['current'],
  sources: PlanSources,
  warnings: string[],
): RenderedShoot {
  const result = renderSource({
    ...source,
    target: 'shoot',
    now: DEFAULT_NOW,
    strict: sources.strict ?? false,
    ...(sources.gardenerVersion === undefined ? {} : { gardenerVersion: sources.gardenerVersion }),
    ...(sources.featureGates === undefined ? {} : { featureGates: sources.featureGates }),
  });
  warnings.push(...result.warnings);
  const metadata = (source.cluster as { metadata?: { annotations?: Record<string, string> } } | undefined)
    ?.metadata;
  return {
    pools: poolOscs(result.objects),
    cluster: result.cluster,
    ...(metadata?.annotations ? { clusterAnnotations: metadata.annotations } : {}),
  };
}

/** The plan of two parsed Clusters; warnings of both renders are returned (duplicates included). */
export function planSources(sources: PlanSources): { view: PlanView; warnings: string[] } {
  const warnings: string[] = [];
  const current = renderShoot(sources.current, sources, warnings);
  const next = renderShoot(sources.next, sources, warnings);
  // a plan is a change of one shoot; two shoots' nodes compared is almost always the wrong file
  if (shootName(current) !== shootName(next) || current.cluster.name !== next.cluster.name)
    warnings.push(
      `${sources.current.clusterName} and ${sources.next.clusterName} are different shoots (${shootName(current)} in Cluster ${current.cluster.name}, ${shootName(next)} in Cluster ${next.cluster.name}): the plan compares the nodes of two shoots`,
    );
  const rollout = gatedRollout(sources.rollout ?? RolloutSettingsSchema.parse({}));
  return { view: planFleet(current, next, rollout, sources.disruptionPolicy), warnings };
}

const named = (what: string, path: string) => `${what} ${path === '-' ? 'from standard input' : path}`;

export function readPlanSources(options: PlanOptions, readStdin?: () => string): PlanSources {
  const conflict = stdinConflict({
    '--cluster': options.cluster,
    '--next': options.next,
    '--values': options.values || undefined,
    '--next-values': options.nextValues,
    '--config': options.config,
  });
  if (conflict) throw new UsageError(conflict);
  const parse = (path: string, what: string) =>
    parseYamlInput(readInput(path, what, readStdin), named(what, path));
  const values = options.values ? parse(options.values, 'values') : undefined;
  const nextValuesFile = options.nextValues ?? (options.values || undefined);
  const placeholderValues = options.values === false;
  const nextValues = options.nextValues === undefined ? values : parse(options.nextValues, 'next values');
  // least disruption is on by default, as in the agents; `none`: upstream's restarts
  const disruptionPolicy = readDisruptionPolicy(options.disruptionPolicy, readStdin);
  return {
    current: {
      cluster: parse(options.cluster, 'cluster'),
      clusterName: named('cluster', options.cluster),
      values,
      placeholderValues,
      ...(options.values ? { valuesName: named('values', options.values) } : {}),
    },
    next: {
      cluster: parse(options.next, 'next cluster'),
      clusterName: named('next cluster', options.next),
      values: nextValues,
      placeholderValues: placeholderValues && options.nextValues === undefined,
      ...(nextValuesFile ? { valuesName: named('values', nextValuesFile) } : {}),
    },
    strict: options.strict ?? false,
    ...(options.gardenerVersion === undefined ? {} : { gardenerVersion: options.gardenerVersion }),
    ...(options.featureGates === undefined ? {} : { featureGates: options.featureGates }),
    ...(options.config
      ? { rollout: loadControllerManagerConfiguration(options.config, readStdin).controllers.rollout }
      : {}),
    ...(disruptionPolicy ? { disruptionPolicy } : {}),
  };
}

export interface PlanIo {
  readonly stdout: { write(text: string): unknown };
  readonly notices: Notices;
  readonly readStdin?: () => string;
}

export function runPlan(options: PlanOptions, io: PlanIo): void {
  const { view, warnings } = planSources(readPlanSources(options, io.readStdin));
  for (const w of warnings) io.notices.warn(w);
  io.stdout.write(formatPlan(view, options.format));
  if (options.exitCode && anyChange(view)) throw new ExitStatus(EXIT_CHANGES);
}

export function addPlanCommand(program: Command, io: (level?: CliLogLevel) => PlanIo): void {
  program
    .command('plan')
    .description(
      'show what changing a shoot from one Cluster to the next does to its nodes, per worker pool: units restarted and why, files changed, the rollout',
    )
    .requiredOption('--cluster <file>', 'the Cluster as it is ("-": standard input)')
    .requiredOption('--next <file>', 'the Cluster as it will be ("-": standard input)')
    .option('--values <file>', 'render values (CA bundles, SSH keys, images) for both')
    .option('--next-values <file>', 'render values for the next Cluster only (default: --values)')
    .option(
      '--no-values',
      'render both with placeholder CA bundles and no SSH keys, without the warning that says so',
    )
    .addOption(
      new Option('-o, --format <format>', 'text for people; yaml or json for tools (docs/plan.md)')
        .choices(PLAN_FORMATS)
        .default('text'),
    )
    .option('--exit-code', 'exit 3 when any pool changes, 0 when none does (for CI)')
    .option('--strict', 'reject fields of the Shoot that Gardener does not know (default: a warning)')
    .addOption(
      new Option(
        '--gardener-version <version>',
        `the contract of both renders (default: each Cluster's annotation ${GARDENER_VERSION_ANNOTATION}, else ${DEFAULT_GARDENER_VERSION}); a Cluster annotated with another contract than its predecessor plans the switch`,
      ).choices(GARDENER_VERSIONS),
    )
    .option(
      '--feature-gates <gates>',
      "gardenlet's feature gates of both renders, as render reads them (e.g. OpenTelemetryCollector=false with v1.150.0)",
    )
    .option(
      '--config <file>',
      'the controller-manager configuration: its controllers.rollout decides how the plan rolls out (default: its defaults, the rollout gate on)',
    )
    .addOption(disruptionPolicyOption())
    .action((options: PlanOptions) => runPlan(options, io(options.logLevel)));
}
