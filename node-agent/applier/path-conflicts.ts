/**
 * Paths of one OSC that cannot all be written: found before anything is written, so an OSC that
 * would fail halfway (a file and a path below it, `a.service.d` beside the drop-ins of
 * `a.service`, a file that is also a unit file, the agent's own state) is rejected as a whole,
 * naming the field. Also the kernel's limits on names (255 bytes) and paths (4095 bytes).
 */
import { dirname } from 'node:path';
import type { FieldError, OperatingSystemConfig } from '../../api/index.js';
import { AGENT_SCRATCH_DIR, AGENT_STATE_PATHS, type WrittenPath, writtenPaths } from './written-paths.js';

const NAME_MAX = 255;
const PATH_MAX = 4095;

/** Kinds that are files on disk (a directory cannot be one of them). */
const FILE_KINDS = new Set(['file', 'unit', 'drop-in', 'state']);

function describe(w: WrittenPath): string {
  return w.kind === 'state' ? `the node agent's ${w.path}` : `${w.path} (${w.field})`;
}

function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let p = dirname(path); p !== '/' && p !== '.'; p = dirname(p)) out.push(p);
  return out;
}

function sizeProblem(path: string): string | undefined {
  if (Buffer.byteLength(path) > PATH_MAX) return `is longer than ${PATH_MAX} bytes`;
  const long = path.split('/').find((segment) => Buffer.byteLength(segment) > NAME_MAX);
  return long === undefined ? undefined : `has a name longer than ${NAME_MAX} bytes`;
}

export function pathConflicts(osc: OperatingSystemConfig): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const report = (field: string, detail: string, value: string) => {
    const key = `${field}\0${detail}`;
    if (seen.has(key)) return;
    seen.add(key);
    errors.push({ type: 'Invalid', field, detail, value });
  };
  const written = writtenPaths(osc);
  const byPath = new Map<string, WrittenPath[]>();
  for (const w of written) byPath.set(w.path, [...(byPath.get(w.path) ?? []), w]);

  for (const w of written) {
    if (w.kind === 'state') continue;
    const size = sizeProblem(w.path);
    if (size) report(w.field, size, w.path);
    if (w.kind === 'file') {
      if ((AGENT_STATE_PATHS as readonly string[]).includes(w.path))
        report(w.field, "is the node agent's own state file", w.path);
      if (w.path === AGENT_SCRATCH_DIR || w.path.startsWith(`${AGENT_SCRATCH_DIR}/`))
        report(w.field, "lies in the node agent's scratch directory", w.path);
    }
    for (const other of byPath.get(w.path) ?? []) {
      if (other !== w && other.kind !== 'state' && other.field !== w.field)
        report(w.field, `is also written for ${other.field}`, w.path);
    }
    // a path the apply writes as a file cannot also be a directory of another written path
    for (const parent of ancestors(w.path)) {
      for (const blocker of byPath.get(parent) ?? []) {
        if (FILE_KINDS.has(blocker.kind) && blocker.kind !== 'state')
          report(
            blocker.field,
            `is written as a file, but ${describe(w)} needs it to be a directory`,
            parent,
          );
      }
    }
  }
  // the agent's own state needs its directories too
  for (const state of [...AGENT_STATE_PATHS, AGENT_SCRATCH_DIR]) {
    for (const parent of ancestors(state)) {
      for (const blocker of byPath.get(parent) ?? []) {
        if (blocker.kind === 'file')
          report(blocker.field, `is written as a file, but the node agent keeps ${state} below it`, parent);
      }
    }
  }
  return errors;
}
