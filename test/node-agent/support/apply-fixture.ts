/** Runs applyOsc on temp roots with an in-memory systemd and a directory of fake images. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { OperatingSystemConfig } from '../../../api/index.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { type ApplyOptions, type ApplyResult, applyOsc } from '../../../node-agent/applier/apply-osc.js';
import {
  DirectoryImageExtractor,
  imageDirectoryName,
} from '../../../node-agent/registry/directory-extractor.js';
import type { SystemdOp } from '../../../node-agent/systemd/systemd.js';
import { yamlOf } from './ntv18-fixtures.js';

export function writeImages(dir: string, images: Record<string, Record<string, string>>): string {
  for (const [image, files] of Object.entries(images)) {
    for (const [path, content] of Object.entries(files)) {
      const file = join(dir, imageDirectoryName(image), path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }
  return dir;
}

export function opText(op: SystemdOp): string {
  return 'unit' in op ? `${op.op} ${op.unit}` : op.op;
}

export interface ApplyRun {
  readonly result: ApplyResult;
  readonly ops: string[];
}

export async function applyTo(
  root: string,
  osc: OperatingSystemConfig | string,
  imagesDir: string,
  extra: Partial<ApplyOptions> & { systemd?: MemorySystemd } = {},
): Promise<ApplyRun> {
  const systemd = extra.systemd ?? new MemorySystemd();
  const result = await applyOsc({
    root,
    oscText: typeof osc === 'string' ? osc : yamlOf(osc),
    images: new DirectoryImageExtractor(imagesDir),
    onNodeAgentRestart: 'continue',
    ...extra,
    systemd,
  });
  return { result, ops: systemd.ops.map(opText) };
}
