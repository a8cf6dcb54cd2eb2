/** Where a command reads its environment and input and writes its output; tests pass their own. */
import { readProcessStdin } from '../../runtime/cli/input-file.js';
import type { NodeBackends } from './backends.js';

export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
  /** Standard input as text, for files given as `-`; default: the process's. */
  readonly readStdin?: () => string;
  /** What `--systemd` and `--disk` may name; default NODE_BACKENDS (systemctl, the formatter script). */
  readonly backends?: NodeBackends;
}

export const processIo: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  readStdin: readProcessStdin,
};
