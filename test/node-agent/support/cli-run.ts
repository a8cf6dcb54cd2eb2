/**
 * Runs the node agent CLI in-process (fast) or as a child process (for kills and exit codes), with
 * the recorders of hack/node-agent-doubles behind `--systemd record:FILE` and `--disk record:FILE`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../../../hack/node-agent-doubles/main.js';

export const CLI_MAIN = join(import.meta.dirname, '../../../hack/node-agent-doubles/main.ts');

export interface CliResult {
  readonly code: number | null;
  readonly signal?: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

function collector(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}

export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  stdin?: string,
): Promise<CliResult> {
  const out = collector();
  const err = collector();
  const readStdin = () => {
    if (stdin === undefined) throw new Error('the test gave no standard input');
    return stdin;
  };
  const code = await main(args, {
    stdout: out.stream,
    stderr: err.stream,
    env: { ...process.env, ...env },
    readStdin,
  });
  return { code, stdout: out.text(), stderr: err.text() };
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_MAIN, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
