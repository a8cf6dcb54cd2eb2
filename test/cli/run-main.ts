/** Runs `gardener-osc` in-process with captured output and a given standard input. */
import { main } from '../../cli/main.js';

export interface MainResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function runMain(
  argv: readonly string[],
  stdin?: string,
  options: { terminal?: boolean } = {},
): Promise<MainResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
    stderrIsTerminal: options.terminal ?? false,
    readStdin: () => {
      if (stdin === undefined) throw new Error('the test gave no standard input');
      return stdin;
    },
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}
