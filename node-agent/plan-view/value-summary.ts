/**
 * A one-line account of what changed inside a file, for the plan's summary: the settings of a YAML
 * or JSON document (`maxPods 110 → 120`), of `key = value` files (sysctl, systemd INI, env files:
 * `net.ipv4.tcp_keepalive_time 300 → 600`), else the number of lines added and removed.
 */
import { parseYaml } from '../../api/index.js';
import { lineDiff } from './line-diff.js';

const SHOWN = 3;
const MAX_VALUE = 40;

type Flat = Map<string, string>;

const isMapping = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function scalarText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const quoted =
    typeof value === 'string' && (value === '' || /\s/.test(value)) ? JSON.stringify(value) : text;
  return quoted.length > MAX_VALUE ? `${quoted.slice(0, MAX_VALUE - 1)}…` : quoted;
}

function flatten(value: unknown, prefix: string, out: Flat): void {
  if (isMapping(value) && Object.keys(value).length > 0) {
    for (const [key, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${key}` : key, out);
  } else out.set(prefix, scalarText(value));
}

function yamlSettings(text: string): Flat | undefined {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    return undefined;
  }
  if (!isMapping(doc)) return undefined;
  const out: Flat = new Map();
  flatten(doc, '', out);
  return out;
}

const SECTION = /^\s*\[([^\]]+)\]\s*$/;
const SETTING = /^\s*([^=\s#;[][^=]*?)\s*=\s*(.*?)\s*$/;
const COMMENT = /^\s*([#;].*)?$/;

function keyValueSettings(text: string): Flat | undefined {
  const out: Flat = new Map();
  let section = '';
  for (const line of text.split('\n')) {
    if (COMMENT.test(line)) continue;
    const header = SECTION.exec(line);
    if (header) {
      section = `${header[1]}.`;
      continue;
    }
    const setting = SETTING.exec(line);
    if (!setting) return undefined;
    out.set(`${section}${setting[1]}`, scalarText(setting[2]));
  }
  return out.size > 0 ? out : undefined;
}

function settingsOf(text: string): Flat | undefined {
  return yamlSettings(text) ?? keyValueSettings(text);
}

function lineCounts(before: string, after: string): string {
  const ops = lineDiff(before.split('\n'), after.split('\n'));
  const added = ops.filter((o) => o.op === '+').length;
  const removed = ops.filter((o) => o.op === '-').length;
  return `+${added} −${removed} lines`;
}

/** The settings that differ, `key from → to` (`(unset)` for a missing one), at most three shown. */
export function settingChanges(before: string, after: string): string[] | undefined {
  const a = settingsOf(before);
  const b = settingsOf(after);
  if (!a || !b) return undefined;
  const keys = [...new Set([...a.keys(), ...b.keys()])];
  return keys
    .filter((k) => a.get(k) !== b.get(k))
    .map((k) => `${k} ${a.get(k) ?? '(unset)'} → ${b.get(k) ?? '(unset)'}`);
}

export function summarizeTextChange(before: string, after: string): string {
  const changes = settingChanges(before, after);
  if (!changes || changes.length === 0) return lineCounts(before, after);
  const shown = changes.slice(0, SHOWN).join(', ');
  return changes.length > SHOWN ? `${shown} and ${changes.length - SHOWN} more` : shown;
}
