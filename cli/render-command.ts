/**
 * `gardener-osc render`: what gardenlet renders for a shoot's node configuration, as
 * deterministic multi-document YAML (the same input gives the same bytes, always). Everything is
 * rendered in memory first: on any error nothing is written, and every error is listed with its
 * field path.
 */
import { join } from 'node:path';
import { App } from 'cdk8s';
import { type Command, Option } from 'commander';
import {
  type Cluster,
  chooseGardenerVersion,
  DEFAULT_GARDENER_VERSION,
  FEATURE_GATE_OPEN_TELEMETRY_COLLECTOR,
  FEATURE_GATE_USE_GARDENER_NODE_AGENT,
  GARDENER_VERSION_ANNOTATION,
  GARDENER_VERSIONS,
  type GardenerVersion,
  isGardenerVersion,
  NODE_AGENT_IDENTITY,
  parseRfc3339,
  stringifyYaml,
} from '../api/index.js';
import { NodeConfigurationChart, type RenderTarget } from '../charts/node-configuration-chart.js';
import { NotInContractV150Error } from '../charts/node-configuration-v150.js';
import type { RenderValues } from '../charts/values/render-values.js';
import { NodeInitError } from '../components/node-init/node-init.js';
import { UsageError } from '../runtime/cli/exit-codes.js';
import { stdinConflict } from '../runtime/cli/input-file.js';
import { writeOutputDirectory } from '../runtime/cli/output-directory.js';
import type { CliLogLevel, Notices } from '../runtime/cli/warnings.js';
import { packagePath } from './package-root.js';
import { decodeObject, stableFileNames } from './render-decode.js';
import {
  decodeClusterInput,
  decodeValuesInput,
  InputError,
  NO_VALUES_WARNING,
  parseYamlInput,
  readInput,
} from './render-input.js';
import { renderSummary } from './render-summary.js';

/** `--now` default: a fixed instant, so renders are reproducible unless asked otherwise. */
export const DEFAULT_NOW = '2024-01-01T00:00:00Z';
const EXAMPLES = packagePath('examples');
export const EXAMPLE_CLUSTER = join(EXAMPLES, 'cluster.yaml');
export const EXAMPLE_VALUES = join(EXAMPLES, 'values.yaml');

export const RENDER_FORMATS = ['yaml', 'json'] as const;
export type RenderFormat = (typeof RENDER_FORMATS)[number];

export interface RenderOptions {
  cluster?: string;
  /** A file, or `false` for `--no-values`: placeholders, deliberately, without a warning. */
  values?: string | false;
  featureGates?: string;
  legacyNodes?: boolean;
  /** `node` or `serviceAccount`; wins over the values' `nodeAgentIdentity`. */
  nodeAgentIdentity?: string;
  /** The contract; wins over the Cluster's annotation (default v1.91.4). */
  gardenerVersion?: string;
  target: string;
  now: string;
  output?: string;
  strict?: boolean;
  format?: RenderFormat;
  /** The review form: base64 decoded, stable file names (cli/render-decode.ts). */
  decode?: boolean;
  logLevel?: CliLogLevel;
}

/** The parsed inputs of a render, from files or from memory (the plan, the demo). */
export interface RenderSource {
  /** The Cluster object as parsed from YAML, not yet decoded. */
  readonly cluster: unknown;
  /** How messages name it, e.g. `cluster examples/cluster.yaml`. */
  readonly clusterName: string;
  readonly values?: unknown;
  readonly valuesName?: string;
  /** No values on purpose (`--no-values`): placeholders without the warning. */
  readonly placeholderValues?: boolean;
  readonly featureGates?: string;
  readonly legacyNodes?: boolean;
  /** `node` or `serviceAccount`; wins over the values' `nodeAgentIdentity`. */
  readonly nodeAgentIdentity?: string;
  /** The contract (`--gardener-version`); wins over the Cluster's annotation. */
  readonly gardenerVersion?: string;
  readonly target: string;
  readonly now: string;
  readonly strict?: boolean;
}

export interface FeatureGates {
  readonly useGardenerNodeAgent: boolean;
  /** gardenlet v1.150.0's `OpenTelemetryCollector`; present only when given. */
  readonly openTelemetryCollector?: boolean;
}

export function parseFeatureGates(text: string | undefined): FeatureGates {
  let useGardenerNodeAgent = true;
  let openTelemetryCollector: boolean | undefined;
  for (const item of (text ?? '').split(',').filter(Boolean)) {
    const [name, value] = item.split('=');
    if (name !== FEATURE_GATE_USE_GARDENER_NODE_AGENT && name !== FEATURE_GATE_OPEN_TELEMETRY_COLLECTOR)
      throw new UsageError(`--feature-gates: unknown feature gate "${name}"`);
    if (value !== 'true' && value !== 'false')
      throw new UsageError(`--feature-gates: ${name} must be true or false, not "${value}"`);
    if (name === FEATURE_GATE_USE_GARDENER_NODE_AGENT) useGardenerNodeAgent = value === 'true';
    else openTelemetryCollector = value === 'true';
  }
  return openTelemetryCollector === undefined
    ? { useGardenerNodeAgent }
    : { useGardenerNodeAgent, openTelemetryCollector };
}

/** A gate of gardenlet v1.150.0 asked for while rendering v1.91.4, which has no such gate. */
function checkGatesOfContract(gates: FeatureGates, gardenerVersion: GardenerVersion): void {
  if (gardenerVersion !== 'v1.150.0' && gates.openTelemetryCollector !== undefined)
    throw new UsageError(
      `--feature-gates: ${FEATURE_GATE_OPEN_TELEMETRY_COLLECTOR} is a feature gate of gardenlet v1.150.0, not of ${gardenerVersion} (use --gardener-version v1.150.0)`,
    );
}

/** gardenlet v1.91.4 has no registry CA (v1.149.0 added it): the library leaves the value unused. */
export const REGISTRY_CA_NOT_IN_V191 =
  'values registryCaBundle: the v1.91.4 contract has no registry CA (gardenlet v1.149.0 added it); ignored';

export interface RenderResult {
  readonly objects: Record<string, unknown>[];
  readonly warnings: readonly string[];
  /** The worker pools rendered (those with a machine image), in the Shoot's order. */
  readonly pools: readonly string[];
  readonly cluster: Cluster;
  /** The contract rendered. */
  readonly gardenerVersion: GardenerVersion;
}

/** The annotations of a Cluster as parsed, before it is decoded. */
function rawAnnotations(cluster: unknown): Record<string, string> | undefined {
  const annotations = (cluster as { metadata?: { annotations?: unknown } } | null)?.metadata?.annotations;
  return annotations && typeof annotations === 'object' ? (annotations as Record<string, string>) : undefined;
}

/** `--gardener-version`, else the Cluster's annotation, else the default; a wrong value names its source. */
export function sourceGardenerVersion(
  source: Pick<RenderSource, 'cluster' | 'clusterName' | 'gardenerVersion'>,
): GardenerVersion {
  const flag = source.gardenerVersion;
  if (flag !== undefined && !isGardenerVersion(flag))
    throw new UsageError(`--gardener-version must be one of ${GARDENER_VERSIONS.join(', ')}, not "${flag}"`);
  const choice = chooseGardenerVersion(rawAnnotations(source.cluster), DEFAULT_GARDENER_VERSION, flag);
  if (!choice.ok)
    throw new InputError(source.clusterName, [
      {
        type: 'NotSupported',
        field: `metadata.annotations[${GARDENER_VERSION_ANNOTATION}]`,
        value: choice.value,
        detail: choice.detail,
      },
    ]);
  return choice.version;
}

export function renderSource(source: RenderSource): RenderResult {
  const target = source.target as RenderTarget;
  if (target !== 'seed' && target !== 'shoot')
    throw new UsageError(`--target must be seed or shoot, not "${source.target}"`);
  const gates = parseFeatureGates(source.featureGates);
  let now: ReturnType<typeof parseRfc3339>;
  try {
    now = parseRfc3339(source.now);
  } catch (e) {
    throw new UsageError(`--now: ${(e as Error).message}`);
  }
  const gardenerVersion = sourceGardenerVersion(source);
  checkGatesOfContract(gates, gardenerVersion);
  const { cluster, warnings } = decodeClusterInput(
    source.cluster,
    source.clusterName,
    source.strict ?? false,
    gardenerVersion,
  );
  let values: RenderValues = {};
  if (source.values !== undefined) values = decodeValuesInput(source.values, source.valuesName ?? 'values');
  else if (!source.placeholderValues) warnings.push(NO_VALUES_WARNING);
  if (gardenerVersion !== 'v1.150.0' && values.registryCaBundle !== undefined)
    warnings.push(REGISTRY_CA_NOT_IN_V191);
  if (source.nodeAgentIdentity !== undefined) {
    const identity = source.nodeAgentIdentity;
    if (identity !== NODE_AGENT_IDENTITY.node && identity !== NODE_AGENT_IDENTITY.serviceAccount)
      throw new UsageError(`--node-agent-identity must be node or serviceAccount, not "${identity}"`);
    values = { ...values, nodeAgentIdentity: identity };
  }
  const app = new App({ outdir: join(EXAMPLES, '..', 'dist') });
  let chart: NodeConfigurationChart;
  try {
    chart = new NodeConfigurationChart(app, 'node-configuration', {
      cluster,
      values,
      gardenerVersion,
      useGardenerNodeAgent: gates.useGardenerNodeAgent,
      openTelemetryCollector: gates.openTelemetryCollector,
      legacyNodes: source.legacyNodes ?? false,
      now,
      target,
    });
  } catch (e) {
    if (e instanceof NodeInitError)
      throw new InputError(source.clusterName, [
        { type: 'Invalid', field: 'spec.shoot.spec.provider.workers', detail: e.message },
      ]);
    if (e instanceof NotInContractV150Error)
      throw new UsageError(`--gardener-version v1.150.0: ${e.message}`);
    throw e;
  }
  return {
    objects: chart.toJson() as Record<string, unknown>[],
    warnings: [...warnings, ...chart.warnings],
    pools: cluster.shoot.spec.provider.workers.filter((w) => w.machine.image).map((w) => w.name),
    cluster,
    gardenerVersion,
  };
}

/** Renders from files (`-`: standard input); without --cluster the example and its values. */
export function render(options: RenderOptions, readStdin?: () => string): RenderResult {
  const conflict = stdinConflict({ '--cluster': options.cluster, '--values': options.values || undefined });
  if (conflict) throw new UsageError(conflict);
  const clusterFile = options.cluster ?? EXAMPLE_CLUSTER;
  const valuesFile =
    options.values === false ? undefined : (options.values ?? (options.cluster ? undefined : EXAMPLE_VALUES));
  const clusterName = `cluster ${clusterFile === '-' ? 'from standard input' : clusterFile}`;
  const cluster = parseYamlInput(readInput(clusterFile, 'cluster', readStdin), clusterName);
  const valuesName = valuesFile && `values ${valuesFile === '-' ? 'from standard input' : valuesFile}`;
  const values =
    valuesFile === undefined
      ? undefined
      : parseYamlInput(readInput(valuesFile, 'values', readStdin), valuesName!);
  return renderSource({
    ...options,
    cluster,
    clusterName,
    values,
    valuesName,
    placeholderValues: options.values === false,
  });
}

function fileName(object: Record<string, unknown>, format: RenderFormat, name?: string): string {
  const metadata = object.metadata as { name?: string; namespace?: string };
  const base = [String(object.kind).toLowerCase(), metadata.namespace, name ?? metadata.name]
    .filter(Boolean)
    .join('_')
    .replaceAll(':', '_');
  return `${base}.${format}`;
}

/** The bytes of one object, or of all of them (multi-document YAML; JSON: a v1 List as kubectl prints). */
export function formatObjects(objects: readonly Record<string, unknown>[], format: RenderFormat): string {
  if (format === 'yaml') return objects.map((o) => stringifyYaml(o)).join('---\n');
  const list = objects.length === 1 ? objects[0] : { apiVersion: 'v1', kind: 'List', items: objects };
  return `${JSON.stringify(list, null, 2)}\n`;
}

/** `--output yaml` was meant as a format (kubectl's -o), not as a directory named yaml. */
function checkOutputDirectory(output: string): void {
  if ((RENDER_FORMATS as readonly string[]).includes(output) || output === 'text')
    throw new UsageError(
      `--output takes a directory; for the output format use -o ${output} (--format ${output})`,
    );
}

export interface RenderIo {
  readonly stdout: { write(text: string): unknown };
  readonly notices: Notices;
  /** Whether standard error is a terminal: then a short summary goes there. */
  readonly terminal: boolean;
  readonly readStdin?: () => string;
}

export function runRender(options: RenderOptions, io: RenderIo): void {
  if (options.output !== undefined) checkOutputDirectory(options.output);
  const format = options.format ?? 'yaml';
  if (options.decode && format !== 'yaml')
    throw new UsageError(
      `--decode shows contents as YAML block text; it cannot be combined with -o ${format}`,
    );
  const result = render(options, io.readStdin);
  for (const w of result.warnings) io.notices.warn(w);
  const objects = options.decode ? result.objects.map(decodeObject) : result.objects;
  if (options.output) {
    const names = options.decode
      ? stableFileNames(objects, (o, name) => fileName(o, format, name))
      : objects.map((o) => fileName(o, format));
    const files = new Map(objects.map((o, i) => [names[i]!, formatObjects([o], format)]));
    if (files.size !== objects.length) throw new Error('two rendered objects share a file name');
    const { written, removed } = writeOutputDirectory(options.output, files);
    for (const path of written) io.notices.info(`wrote ${path}`);
    for (const path of removed) io.notices.info(`removed ${path} (no longer rendered)`);
    io.notices.info(
      `wrote ${written.length} files to ${options.output}${removed.length > 0 ? `, removed ${removed.length}` : ''}`,
    );
    return;
  }
  const text = formatObjects(objects, format);
  io.stdout.write(text);
  if (io.terminal) io.notices.info(renderSummary(result, Buffer.byteLength(text)));
}

export function addRenderCommand(program: Command, io: (level?: CliLogLevel) => RenderIo): void {
  program
    .command('render')
    .description("render a shoot's node configuration as gardenlet does (default: examples/cluster.yaml)")
    .option(
      '--cluster <file>',
      'the Cluster (extensions.gardener.cloud/v1alpha1) to render ("-": standard input)',
    )
    .option(
      '--values <file>',
      'CA bundles, SSH keys, images, API server URL, node logging (default without --cluster: examples/values.yaml)',
    )
    .option(
      '--no-values',
      'render with placeholder CA bundles and no SSH keys, without the warning that says so',
    )
    .option(
      '--feature-gates <gates>',
      `${FEATURE_GATE_USE_GARDENER_NODE_AGENT}=true|false; with --gardener-version v1.150.0 also ${FEATURE_GATE_OPEN_TELEMETRY_COLLECTOR}=true|false (false: valitail ships the node logs)`,
      `${FEATURE_GATE_USE_GARDENER_NODE_AGENT}=true`,
    )
    .option('--legacy-nodes', 'legacy cloud-config-downloader nodes remain (a migration is running)')
    .addOption(
      new Option(
        '--node-agent-identity <mode>',
        'node: every agent its own identity, limited by the authorizer (default); serviceAccount: the shared ServiceAccount and RBAC of v1.91, byte for byte',
      ).choices([NODE_AGENT_IDENTITY.node, NODE_AGENT_IDENTITY.serviceAccount]),
    )
    .addOption(
      new Option(
        '--gardener-version <version>',
        `the contract rendered: what gardenlet of this release writes (default: the Cluster's annotation ${GARDENER_VERSION_ANNOTATION}, else ${DEFAULT_GARDENER_VERSION}; docs/compatibility.md)`,
      ).choices(GARDENER_VERSIONS),
    )
    .addOption(
      new Option(
        '--target <target>',
        'seed: the objects gardenlet creates in the seed; shoot: what the ManagedResources put into the shoot',
      )
        .choices(['seed', 'shoot'])
        .default('seed'),
    )
    .option('--now <rfc3339>', 'the timestamp written into annotations', DEFAULT_NOW)
    .option(
      '--output <dir>',
      'write one file per object into this directory instead of stdout; files an earlier run wrote that are no longer rendered are removed, a directory with other files is refused',
    )
    .addOption(
      new Option('-o, --format <format>', 'yaml documents, or json (a v1 List)')
        .choices(RENDER_FORMATS)
        .default('yaml'),
    )
    .option(
      '--decode',
      'for review and snapshot tests, not for applying: base64 contents decoded as YAML block text, --output file names without hashes (docs/snapshots.md)',
    )
    .option('--strict', 'reject fields of the Shoot that Gardener does not know (default: a warning)')
    .action((options: RenderOptions) => runRender(options, io(options.logLevel)));
}
