/**
 * `gardener-osc render`: what gardenlet renders for a shoot's node configuration, as
 * deterministic multi-document YAML (the same input gives the same bytes, always). Everything is
 * rendered in memory first: on any error nothing is written, and every error is listed with its
 * field path.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'cdk8s';
import type { Command } from 'commander';
import {
  type Cluster,
  decodeCluster,
  FEATURE_GATE_USE_GARDENER_NODE_AGENT,
  type FieldError,
  formatFieldErrors,
  isSupportedKubernetesVersion,
  parseRfc3339,
  parseYaml,
  shootNodeProblems,
  stringifyYaml,
  tryParseSemVer,
  unsupportedKubernetesVersionMessage,
} from '../api/index.js';
import { NodeConfigurationChart, type RenderTarget } from '../charts/node-configuration-chart.js';
import { type RenderValues, RenderValuesSchema } from '../charts/values/render-values.js';
import { NodeInitError } from '../components/node-init/node-init.js';
import { UsageError } from './exit-codes.js';

/** `--now` default: a fixed instant, so renders are reproducible unless asked otherwise. */
export const DEFAULT_NOW = '2024-01-01T00:00:00Z';
const EXAMPLES = join(import.meta.dirname, '..', 'examples');

export interface RenderOptions {
  cluster?: string;
  values?: string;
  featureGates?: string;
  legacyNodes?: boolean;
  target: string;
  now: string;
  output?: string;
}

class InputError extends UsageError {
  constructor(what: string, errors: readonly FieldError[]) {
    super(`invalid ${what}:\n${formatFieldErrors(errors)}`);
  }
}

function readYamlFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${what} ${path}: ${(e as Error).message}`);
  }
  try {
    return parseYaml(text);
  } catch (e) {
    throw new InputError(`${what} ${path}`, [{ type: 'Invalid', field: '', detail: (e as Error).message }]);
  }
}

export function parseFeatureGates(text: string | undefined): { useGardenerNodeAgent: boolean } {
  let useGardenerNodeAgent = true;
  for (const item of (text ?? '').split(',').filter(Boolean)) {
    const [name, value] = item.split('=');
    if (name !== FEATURE_GATE_USE_GARDENER_NODE_AGENT)
      throw new UsageError(`--feature-gates: unknown feature gate "${name}"`);
    if (value !== 'true' && value !== 'false')
      throw new UsageError(`--feature-gates: ${name} must be true or false, not "${value}"`);
    useGardenerNodeAgent = value === 'true';
  }
  return { useGardenerNodeAgent };
}

function checkVersions(cluster: Cluster): FieldError[] {
  const errors: FieldError[] = [];
  const check = (field: string, text: string | undefined) => {
    if (text === undefined) return;
    const v = tryParseSemVer(text);
    if (!v) errors.push({ type: 'Invalid', field, value: text, detail: 'not a semantic version' });
    else if (!isSupportedKubernetesVersion(v))
      errors.push({ type: 'Invalid', field, value: text, detail: unsupportedKubernetesVersionMessage(text) });
  };
  check('spec.shoot.spec.kubernetes.version', cluster.shoot.spec.kubernetes.version);
  cluster.shoot.spec.provider.workers.forEach((w, i) => {
    check(`spec.shoot.spec.provider.workers[${i}].kubernetes.version`, w.kubernetes?.version);
  });
  return errors;
}

export interface RenderResult {
  readonly objects: Record<string, unknown>[];
  readonly warnings: readonly string[];
}

export function render(options: RenderOptions): RenderResult {
  const target = options.target as RenderTarget;
  if (target !== 'seed' && target !== 'shoot')
    throw new UsageError(`--target must be seed or shoot, not "${options.target}"`);
  const { useGardenerNodeAgent } = parseFeatureGates(options.featureGates);
  let now: ReturnType<typeof parseRfc3339>;
  try {
    now = parseRfc3339(options.now);
  } catch (e) {
    throw new UsageError(`--now: ${(e as Error).message}`);
  }
  const clusterFile = options.cluster ?? join(EXAMPLES, 'cluster.yaml');
  const valuesFile = options.values ?? (options.cluster ? undefined : join(EXAMPLES, 'values.yaml'));
  const decoded = decodeCluster(readYamlFile(clusterFile, 'cluster'));
  if (!decoded.ok) throw new InputError(`cluster ${clusterFile}`, decoded.errors);
  // what Gardener's Shoot validation and the rendered objects would reject, before rendering
  const shootErrors = [
    ...checkVersions(decoded.value),
    ...shootNodeProblems(decoded.value.shoot, 'spec.shoot'),
  ];
  if (shootErrors.length > 0) throw new InputError(`cluster ${clusterFile}`, shootErrors);
  let values: RenderValues = {};
  if (valuesFile) {
    const parsed = RenderValuesSchema.safeParse(readYamlFile(valuesFile, 'values'));
    if (!parsed.success) {
      throw new InputError(
        `values ${valuesFile}`,
        parsed.error.issues.map((i) => ({ type: 'Invalid', field: i.path.join('.'), detail: i.message })),
      );
    }
    values = parsed.data;
  }
  const app = new App({ outdir: join(EXAMPLES, '..', 'dist') });
  let chart: NodeConfigurationChart;
  try {
    chart = new NodeConfigurationChart(app, 'node-configuration', {
      cluster: decoded.value,
      values,
      useGardenerNodeAgent,
      legacyNodes: options.legacyNodes ?? false,
      now,
      target,
    });
  } catch (e) {
    if (e instanceof NodeInitError)
      throw new InputError(`cluster ${clusterFile}`, [
        { type: 'Invalid', field: 'spec.shoot.spec.provider.workers', detail: e.message },
      ]);
    throw e;
  }
  return { objects: chart.toJson() as Record<string, unknown>[], warnings: chart.warnings };
}

function fileName(object: Record<string, unknown>): string {
  const metadata = object.metadata as { name?: string; namespace?: string };
  return `${[String(object.kind).toLowerCase(), metadata.namespace, metadata.name].filter(Boolean).join('_').replaceAll(':', '_')}.yaml`;
}

export function addRenderCommand(program: Command): void {
  program
    .command('render')
    .description("render a shoot's node configuration as gardenlet does (default: examples/cluster.yaml)")
    .option('--cluster <file>', 'the Cluster (extensions.gardener.cloud/v1alpha1) to render')
    .option(
      '--values <file>',
      'CA bundles, SSH keys, images, API server URL, node logging (default without --cluster: examples/values.yaml)',
    )
    .option(
      '--feature-gates <gates>',
      'UseGardenerNodeAgent=true|false',
      `${FEATURE_GATE_USE_GARDENER_NODE_AGENT}=true`,
    )
    .option('--legacy-nodes', 'legacy cloud-config-downloader nodes remain (a migration is running)')
    .option(
      '--target <target>',
      'seed: the objects gardenlet creates in the seed; shoot: what the ManagedResources put into the shoot',
      'seed',
    )
    .option('--now <rfc3339>', 'the timestamp written into annotations', DEFAULT_NOW)
    .option('--output <dir>', 'write one file per object into this directory instead of stdout')
    .action((options: RenderOptions) => {
      const { objects, warnings } = render(options);
      for (const w of warnings) process.stderr.write(`gardener-osc: warning: ${w}\n`);
      if (options.output) {
        mkdirSync(options.output, { recursive: true });
        for (const o of objects) writeFileSync(join(options.output, fileName(o)), stringifyYaml(o));
        return;
      }
      process.stdout.write(objects.map((o) => stringifyYaml(o)).join('---\n'));
    });
}
