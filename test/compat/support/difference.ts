/**
 * A difference the oracle found between our output and upstream's for the same input, named as a
 * reader would look for it: the corpus case, the object (or agent step), the unit, drop-in or file,
 * the field, and the two values.
 */
import { parseYaml } from '../../../api/index.js';

export type Check =
  | 'validate'
  | 'render'
  | 'node-agent'
  | 'node-agent-defaults'
  | 'node-agent-v1.150'
  | 'round-trip'
  | 'osc-secret'
  | 'render-v1.150';

export interface Difference {
  readonly check: Check;
  /** The corpus case or sequence, e.g. `example gate on`. */
  readonly case: string;
  /** The object or step, e.g. `OperatingSystemConfig gardener-node-agent-w-77ac3-gl-original`. */
  readonly subject: string;
  /** The unit, drop-in or file inside it, e.g. `file /opt/bin/init-containerd`; '' for the object. */
  readonly item: string;
  /** The field, e.g. `content`, `permissions`, `mode`, `systemd`. */
  readonly field: string;
  readonly ours: unknown;
  readonly upstream: unknown;
}

/** A file's path when the item names one (`file /etc/x` -> `/etc/x`). */
export function itemPath(d: Difference): string | undefined {
  return /^file (\/.*)$/.exec(d.item)?.[1];
}

/** A unit's name when the item names a unit or one of its drop-ins. */
export function itemUnit(d: Difference): string | undefined {
  return /^(?:unit|drop-in) ([^/\s]+)/.exec(d.item)?.[1];
}

const MAX = 400;

function show(value: unknown): string {
  if (value === undefined) return '(absent)';
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value);
  return text.length > MAX ? `${text.slice(0, MAX)}… (${text.length} chars)` : text;
}

/** For two texts: the first line that differs, with its number, so a long script stays readable. */
function firstDifferentLine(ours: string, upstream: string): string {
  const a = ours.split('\n');
  const b = upstream.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      return `\n      first difference at line ${i + 1}:\n        ours:     ${show(a[i])}\n        upstream: ${show(b[i])}`;
    }
  }
  return '';
}

/** For two YAML documents (a config file): the first key path whose values differ. */
function firstDifferentValue(ours: string, upstream: string): string | undefined {
  let a: unknown;
  let b: unknown;
  try {
    a = parseYaml(ours);
    b = parseYaml(upstream);
  } catch {
    return undefined;
  }
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return undefined;
  const walk = (x: unknown, y: unknown, at: string): string | undefined => {
    if (deepEqual(x, y)) return undefined;
    if (x && y && typeof x === 'object' && typeof y === 'object') {
      for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) {
        const found = walk(
          (x as Record<string, unknown>)[k],
          (y as Record<string, unknown>)[k],
          at ? `${at}.${k}` : k,
        );
        if (found) return found;
      }
    }
    return `\n      first different value at ${at || '(root)'}:\n        ours:     ${show(x)}\n        upstream: ${show(y)}`;
  };
  return walk(a, b, '') ?? '\n      the same values (only the bytes differ)';
}

export function formatDifference(d: Difference): string {
  const where = [d.case, d.subject, d.item, d.field].filter((s) => s !== '').join(' | ');
  const texts =
    typeof d.ours === 'string' && typeof d.upstream === 'string' && /\n/.test(d.ours + d.upstream);
  const lines = texts
    ? (firstDifferentValue(d.ours as string, d.upstream as string) ??
      firstDifferentLine(d.ours as string, d.upstream as string))
    : '';
  return `[${d.check}] ${where}\n      ours:     ${show(d.ours)}\n      upstream: ${show(d.upstream)}${lines}`;
}

/** Collects differences; `compare` records one when the values are not deeply equal. */
export class Differences {
  readonly found: Difference[] = [];

  constructor(
    readonly check: Check,
    readonly caseName: string,
  ) {}

  add(subject: string, item: string, field: string, ours: unknown, upstream: unknown): void {
    this.found.push({ check: this.check, case: this.caseName, subject, item, field, ours, upstream });
  }

  compare(subject: string, item: string, field: string, ours: unknown, upstream: unknown): void {
    if (!deepEqual(ours, upstream)) this.add(subject, item, field, ours, upstream);
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}
