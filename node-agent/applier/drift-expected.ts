/**
 * What an applied OSC left on the node, as drift detection compares it (drift-detect.ts): every
 * file with its mode and, for inline files, its bytes (a file from an image is checked for its
 * existence, type, mode and owner only: its bytes are the image's); every unit with its unit file,
 * drop-ins, enablement and whether it should run. The OSC is the one the applier used: filtered
 * for this host, with containerd's environment drop-in (apply-osc.ts).
 */
import type { OperatingSystemConfig, OscFile } from '../../api/index.js';
import { UNIT } from '../../api/index.js';
import type { DriftOrigin } from '../planner/drift.js';
import { fileModeOf } from '../planner/file-mode.js';
import { mergedUnitsOf } from '../planner/merge-units.js';
import { commandOf, enablementOf } from '../planner/unit-actions.js';
import { inlineBytes } from './file-content.js';

export interface ExpectedFile {
  readonly path: string;
  readonly mode: number;
  /** Inline content; undefined for a file from an image. */
  readonly bytes?: Buffer;
  readonly origin: DriftOrigin;
}

export interface ExpectedDropIn {
  readonly name: string;
  readonly content: string;
  readonly origin: DriftOrigin;
}

export interface ExpectedUnit {
  readonly name: string;
  /** The unit file the agent wrote; undefined for an OS unit it only customises. */
  readonly content?: string;
  readonly dropIns: readonly ExpectedDropIn[];
  readonly enable: boolean;
  /** The apply restarted it, so it should be running (the agent's own unit is not asked). */
  readonly shouldRun: boolean;
  readonly origin: DriftOrigin;
}

export interface ExpectedNode {
  readonly files: readonly ExpectedFile[];
  readonly units: readonly ExpectedUnit[];
}

function expectedFiles(osc: OperatingSystemConfig): ExpectedFile[] {
  const byPath = new Map<string, ExpectedFile>();
  const add = (files: readonly OscFile[] | undefined, origin: DriftOrigin) => {
    for (const f of files ?? []) {
      // a file with neither inline content nor an image is skipped by the applier (execute-step.ts)
      if (!f.content.inline && !f.content.imageRef) continue;
      byPath.delete(f.path);
      byPath.set(f.path, {
        path: f.path,
        mode: fileModeOf(f),
        ...(f.content.inline ? { bytes: inlineBytes(f.content.inline) } : {}),
        origin,
      });
    }
  };
  add(osc.spec.files, 'rendered');
  add(osc.status?.extensionFiles, 'extension');
  return [...byPath.values()];
}

export function expectedNode(osc: OperatingSystemConfig): ExpectedNode {
  const rendered = new Set((osc.spec.units ?? []).map((u) => u.name));
  const renderedDropIns = new Set(
    (osc.spec.units ?? []).flatMap((u) => (u.dropIns ?? []).map((d) => `${u.name}/${d.name}`)),
  );
  const units = mergedUnitsOf(osc).map(
    (u): ExpectedUnit => ({
      name: u.name,
      ...(u.content !== undefined ? { content: u.content } : {}),
      dropIns: u.dropIns.map((d) => ({
        name: d.name,
        content: d.content,
        origin: renderedDropIns.has(`${u.name}/${d.name}`) ? 'rendered' : 'extension',
      })),
      enable: enablementOf(u) === 'enable',
      shouldRun: u.name !== UNIT.nodeAgent && commandOf(u) === 'restart',
      origin: rendered.has(u.name) ? 'rendered' : 'extension',
    }),
  );
  return { files: expectedFiles(osc), units };
}
