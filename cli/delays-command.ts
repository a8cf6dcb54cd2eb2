/**
 * `gardener-osc delays`: the per-node reconciliation delays (`node-agent.gardener.cloud/reconciliation-delay`)
 * for a NodeList, as `{node: delay}` YAML in delay order (then name). The previous assignment is
 * `--previous` (an earlier output of this command) or else the nodes' current annotations, so
 * nodes keep their delays across runs; docs/node-delay.md explains the algorithm.
 */
import { type Command, Option } from 'commander';
import {
  ANNOTATION,
  type FieldError,
  formatFieldErrors,
  formatGoDuration,
  LABEL,
  parseGoDuration,
  parseYaml,
  stringifyYaml,
} from '../api/index.js';
import { assignDelays, type DelayAssignment, type DelayNode } from '../controllers/node-delay/index.js';
import { UsageError } from '../runtime/cli/exit-codes.js';
import { stdinConflict } from '../runtime/cli/input-file.js';
import type { CliLogLevel, Notices } from '../runtime/cli/warnings.js';
import { readInput } from './render-input.js';

export interface DelaysOptions {
  /** Path of the NodeList (YAML or JSON, e.g. `kubectl get nodes -o yaml`). */
  readonly nodes: string;
  /** Path of an earlier output of this command. */
  readonly previous?: string;
  /** Go durations, e.g. `0s`, `5m`. */
  readonly min: string;
  readonly max: string;
}

export interface DelaysResult {
  /** `{node: delay}` YAML, sorted by delay, then name. */
  readonly output: string;
  /** Problems that did not stop the run (ignored annotations). */
  readonly warnings: readonly string[];
  readonly assignment: DelayAssignment;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function parseFile(path: string, files: Readonly<Record<string, string>>, what: string): unknown {
  const text = Object.hasOwn(files, path) ? files[path] : undefined;
  if (text === undefined) throw new UsageError(`cannot read ${what} ${path}`);
  try {
    return parseYaml(text);
  } catch (e) {
    throw new UsageError(
      `invalid ${what} ${path}:\n${formatFieldErrors([{ type: 'Invalid', field: '', detail: (e as Error).message }])}`,
    );
  }
}

function parseDuration(flag: string, text: string): number {
  let value: number;
  try {
    value = parseGoDuration(text);
  } catch (e) {
    throw new UsageError(`${flag}: ${(e as Error).message}`);
  }
  if (value < 0) throw new UsageError(`${flag}: ${text} is negative`);
  return value;
}

/** A string-valued map field (labels, annotations); errors name `field`. */
function stringMap(value: unknown, field: string, errors: FieldError[]): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) {
    errors.push({ type: 'TypeInvalid', field, detail: 'must be a map of strings' });
    return {};
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string')
      errors.push({ type: 'TypeInvalid', field: `${field}[${k}]`, detail: 'must be a string' });
    else out[k] = v;
  }
  return out;
}

/** The nodes of a NodeList, each error with its field path (`items[3].metadata.name`). */
export function nodesFromNodeList(
  raw: unknown,
  warnings: string[],
): { nodes: DelayNode[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const nodes: DelayNode[] = [];
  if (!isRecord(raw))
    return { nodes, errors: [{ type: 'TypeInvalid', field: '', detail: 'must be a NodeList object' }] };
  if (raw.items === undefined || raw.items === null) {
    // An empty list from kubectl has `items: []`; a missing field is more likely the wrong file.
    return { nodes, errors: [{ type: 'Required', field: 'items', detail: 'a NodeList has items' }] };
  }
  if (!Array.isArray(raw.items))
    return { nodes, errors: [{ type: 'TypeInvalid', field: 'items', detail: 'must be a list' }] };
  const seen = new Map<string, number>();
  raw.items.forEach((item: unknown, i) => {
    const at = `items[${i}]`;
    if (!isRecord(item)) {
      errors.push({ type: 'TypeInvalid', field: at, detail: 'must be a Node object' });
      return;
    }
    const metadata = item.metadata;
    if (!isRecord(metadata)) {
      errors.push({
        type: metadata === undefined ? 'Required' : 'TypeInvalid',
        field: `${at}.metadata`,
        detail: 'must be an object',
      });
      return;
    }
    const name = metadata.name;
    if (typeof name !== 'string' || name === '') {
      errors.push({
        type: name === undefined || name === '' ? 'Required' : 'TypeInvalid',
        field: `${at}.metadata.name`,
        value: name,
        detail: 'a node needs a non-empty name',
      });
      return;
    }
    const first = seen.get(name);
    if (first !== undefined) {
      errors.push({
        type: 'Duplicate',
        field: `${at}.metadata.name`,
        value: name,
        detail: `same as items[${first}]`,
      });
      return;
    }
    seen.set(name, i);
    const labels = stringMap(metadata.labels, `${at}.metadata.labels`, errors);
    const annotations = stringMap(metadata.annotations, `${at}.metadata.annotations`, errors);
    const annotation = annotations[ANNOTATION.reconciliationDelay];
    if (annotation !== undefined) {
      let ok = false;
      try {
        ok = parseGoDuration(annotation) >= 0;
      } catch {
        ok = false;
      }
      if (!ok)
        warnings.push(
          `${at}.metadata.annotations[${ANNOTATION.reconciliationDelay}]: ${JSON.stringify(annotation)} is not a duration, ignored`,
        );
    }
    nodes.push({ name, zone: labels[LABEL.zone], annotation });
  });
  return { nodes, errors };
}

/** An earlier output of this command: `{node: delay}`. */
export function previousFromOutput(raw: unknown): { previous: Map<string, number>; errors: FieldError[] } {
  const previous = new Map<string, number>();
  const errors: FieldError[] = [];
  if (raw === null || raw === undefined) return { previous, errors };
  if (!isRecord(raw))
    return {
      previous,
      errors: [{ type: 'TypeInvalid', field: '', detail: 'must be a map of node to delay' }],
    };
  for (const [name, value] of Object.entries(raw)) {
    let delay: number | undefined;
    if (typeof value === 'string') {
      try {
        delay = parseGoDuration(value);
      } catch {
        delay = undefined;
      }
    }
    if (delay === undefined || delay < 0) {
      errors.push({
        type: 'Invalid',
        field: name,
        value,
        detail: 'must be a non-negative Go duration, e.g. 1m15s',
      });
      continue;
    }
    previous.set(name, delay);
  }
  return { previous, errors };
}

function sortedDelays(delays: ReadonlyMap<string, number>): [string, number][] {
  return [...delays].sort(([a, x], [b, y]) => x - y || (a < b ? -1 : a > b ? 1 : 0));
}

/** `{node: delay}` YAML in delay order (then name); each line through the codec, so names are quoted as Go would. */
export function formatDelays(delays: ReadonlyMap<string, number>): string {
  if (delays.size === 0) return '{}\n';
  return sortedDelays(delays)
    .map(([name, delay]) => stringifyYaml(Object.fromEntries([[name, formatGoDuration(delay)]])))
    .join('');
}

/** The whole command without I/O: `files` maps the paths named in `options` to their text. */
export function runDelays(options: DelaysOptions, files: Readonly<Record<string, string>>): DelaysResult {
  const minDelay = parseDuration('--min', options.min);
  const maxDelay = parseDuration('--max', options.max);
  if (maxDelay < minDelay) throw new UsageError(`--max: ${options.max} is below --min ${options.min}`);
  const warnings: string[] = [];
  const { nodes, errors } = nodesFromNodeList(parseFile(options.nodes, files, 'nodes'), warnings);
  if (errors.length > 0)
    throw new UsageError(`invalid nodes ${options.nodes}:\n${formatFieldErrors(errors)}`);
  let previous: Map<string, number> | undefined;
  if (options.previous !== undefined) {
    const parsed = previousFromOutput(parseFile(options.previous, files, 'previous delays'));
    if (parsed.errors.length > 0)
      throw new UsageError(
        `invalid previous delays ${options.previous}:\n${formatFieldErrors(parsed.errors)}`,
      );
    previous = parsed.previous;
  }
  const assignment = assignDelays({ nodes, previous, minDelay, maxDelay });
  return { output: formatDelays(assignment.delays), warnings, assignment };
}

export const DELAYS_FORMATS = ['yaml', 'json'] as const;

export interface DelaysIo {
  readonly stdout: { write(text: string): unknown };
  readonly notices: Notices;
  readonly readStdin?: () => string;
}

/** `{node: delay}` as JSON, in the same order as the YAML (delay, then name), whatever the names. */
export function formatDelaysJson(delays: ReadonlyMap<string, number>): string {
  if (delays.size === 0) return '{}\n';
  const lines = sortedDelays(delays).map(
    ([name, delay]) => `  ${JSON.stringify(name)}: ${JSON.stringify(formatGoDuration(delay))}`,
  );
  return `{\n${lines.join(',\n')}\n}\n`;
}

export function addDelaysCommand(program: Command, io: (level?: CliLogLevel) => DelaysIo): void {
  program
    .command('delays')
    .description(
      'assign every node a reconciliation delay (node-agent.gardener.cloud/reconciliation-delay), spread, stable and zone-aware',
    )
    .requiredOption(
      '--nodes <file>',
      'the NodeList (YAML or JSON, e.g. kubectl get nodes -o yaml; "-": standard input)',
    )
    .option(
      '--previous <file>',
      "an earlier output of this command (default: the nodes' current annotations)",
    )
    .option('--min <duration>', 'the shortest delay (Go duration)', '0s')
    .option('--max <duration>', 'the longest delay (Go duration)', '5m')
    .addOption(new Option('-o, --format <format>', 'yaml or json').choices(DELAYS_FORMATS).default('yaml'))
    .action((options: DelaysOptions & { format: 'yaml' | 'json'; logLevel?: CliLogLevel }) => {
      const { stdout, notices, readStdin } = io(options.logLevel);
      const conflict = stdinConflict({ '--nodes': options.nodes, '--previous': options.previous });
      if (conflict) throw new UsageError(conflict);
      const files: Record<string, string> = { [options.nodes]: readInput(options.nodes, 'nodes', readStdin) };
      if (options.previous !== undefined)
        files[options.previous] = readInput(options.previous, 'previous delays', readStdin);
      const { output, warnings, assignment } = runDelays(options, files);
      for (const w of warnings) notices.warn(w);
      stdout.write(options.format === 'json' ? formatDelaysJson(assignment.delays) : output);
    });
}
