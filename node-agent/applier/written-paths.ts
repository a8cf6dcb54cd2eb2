/**
 * Every host path an apply of an OSC writes or removes, with the OSC field it comes from: the
 * files, the unit files (units with content), the drop-in directories (written into, or removed
 * when a unit has none) and drop-in files, and the agent's own state. Duplicates are merged as
 * upstream merges them (a path listed twice: the last definition; a unit listed twice: merged).
 */
import { join } from 'node:path';
import { type OperatingSystemConfig, type OscUnit, PATH } from '../../api/index.js';
import { mergeUnits } from '../planner/merge-units.js';
import { PROGRESS_FILE } from './progress-file.js';
import { PROGRESS_JOURNAL } from './progress-journal.js';
import { REVERTED_FILE } from './reverted.js';

export type WrittenKind = 'file' | 'unit' | 'drop-in' | 'drop-in-dir' | 'state';

export interface WrittenPath {
  readonly path: string;
  readonly kind: WrittenKind;
  /** The OSC field that asks for it (`spec.files[2].path`); for the agent's own state, its name. */
  readonly field: string;
}

/**
 * The agent's own files and scratch space: no OSC file may be one of them or lie below them. The
 * identity kubeconfig, the token the agent syncs and `machine-name` are its credentials and who
 * it is (node-agent/identity): an OSC that overwrites them takes over the node's identity.
 */
export const AGENT_STATE_PATHS = [
  PATH.lastAppliedOsc,
  PROGRESS_FILE,
  PROGRESS_JOURNAL,
  REVERTED_FILE,
  PATH.nodeAgentKubeconfig,
  PATH.nodeAgentToken,
  PATH.nodeAgentMachineName,
] as const;
export const AGENT_SCRATCH_DIR = PATH.nodeAgentTempDir;

function unitFields(osc: OperatingSystemConfig): Map<string, string> {
  const fields = new Map<string, string>();
  const note = (units: readonly OscUnit[] | undefined, list: string) =>
    (units ?? []).forEach((u, i) => {
      if (!fields.has(u.name)) fields.set(u.name, `${list}[${i}]`);
    });
  note(osc.spec.units, 'spec.units');
  note(osc.status?.extensionUnits, 'status.extensionUnits');
  return fields;
}

export function writtenPaths(osc: OperatingSystemConfig): WrittenPath[] {
  const byPath = new Map<string, WrittenPath>();
  const listFiles = (files: OperatingSystemConfig['spec']['files'], list: string) =>
    (files ?? []).forEach((f, i) => {
      byPath.delete(f.path); // the last definition wins, as on disk
      byPath.set(f.path, { path: f.path, kind: 'file', field: `${list}[${i}].path` });
    });
  listFiles(osc.spec.files, 'spec.files');
  listFiles(osc.status?.extensionFiles, 'status.extensionFiles');
  const out = [...byPath.values()];

  const fields = unitFields(osc);
  const units = mergeUnits([...(osc.spec.units ?? []), ...(osc.status?.extensionUnits ?? [])]);
  for (const unit of units) {
    const field = fields.get(unit.name) ?? 'spec.units';
    const file = join(PATH.systemdUnitDir, unit.name);
    if (unit.content !== undefined) out.push({ path: file, kind: 'unit', field: `${field}.name` });
    out.push({ path: `${file}.d`, kind: 'drop-in-dir', field: `${field}.name` });
    unit.dropIns.forEach((d) => {
      out.push({ path: join(`${file}.d`, d.name), kind: 'drop-in', field: `${field}.dropIns[${d.name}]` });
    });
  }
  for (const path of AGENT_STATE_PATHS) out.push({ path, kind: 'state', field: 'the node agent' });
  out.push({ path: AGENT_SCRATCH_DIR, kind: 'state', field: 'the node agent' });
  return out;
}
