/**
 * `--containerd recorded:VERSION:FILE` under the doubles' entry point (main.ts): a containerd that
 * answers `containerd config default` with FILE's text and reports VERSION, for an agent process
 * under a test root, which has no containerd of its own (the benchmarks, the CLI tests). Its
 * restart requests go to the agent's `--systemd`, as the real containerd's do. FILE is read once,
 * when the flag is read, so a missing file is a usage error before anything is applied.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Backend } from '../../node-agent/cli/backends.js';
import type { ContainerdTool } from '../../node-agent/containerd/containerd-tool.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { isSystemError, systemErrorReason } from '../../runtime/cli/system-error.js';
import { FakeContainerd } from './fake-containerd.js';

const PREFIX = 'recorded:';

export const RECORDED_CONTAINERD: Backend<ContainerdTool> = {
  form: '"recorded:VERSION:FILE"',
  help: '"recorded:VERSION:FILE" (FILE is what `containerd config default` prints, VERSION what it reports)',
  create: (spec) => {
    if (!spec.startsWith(PREFIX)) return undefined;
    const rest = spec.slice(PREFIX.length);
    const colon = rest.indexOf(':');
    const version = colon < 0 ? '' : rest.slice(0, colon);
    const file = colon < 0 ? '' : rest.slice(colon + 1);
    if (version === '' || file === '') return undefined;
    let text: string;
    try {
      text = readFileSync(resolve(file), 'utf8');
    } catch (e) {
      const why = isSystemError(e) ? systemErrorReason(e) : (e as Error).message;
      throw new UsageError(`--containerd ${JSON.stringify(spec)}: cannot read ${file}: ${why}`);
    }
    return new FakeContainerd(text, version);
  },
};
