/** Runs applyOsc on temp roots with an in-memory systemd and a directory of fake images. */
import type { OperatingSystemConfig } from '../../../api/index.js';
import { yamlOf } from '../../../hack/landscape/ntv18-fixtures.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { type ApplyOptions, type ApplyResult, applyOsc } from '../../../node-agent/applier/apply-osc.js';
import { DirectoryImageExtractor } from '../../../node-agent/registry/directory-extractor.js';
import type { SystemdOp } from '../../../node-agent/systemd/systemd.js';

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
