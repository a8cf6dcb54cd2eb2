/**
 * `gardener-node-agent` with test doubles: the agent's own command line (node-agent/cli/program.ts)
 * whose `--systemd` and `--disk` also take the recorders of double-backends.ts. Tests, the demo
 * and the benchmarks run this (`node --import tsx hack/node-agent-doubles/main.ts ...`, or bundled
 * from bin.ts); the agent a node runs (node-agent/bin.ts) has none of it. Like
 * node-agent/cli/main.ts it runs only when started as the program (the bundle is CommonJS, no
 * import.meta); importing it does nothing.
 */
import { type CliIo, processIo } from '../../node-agent/cli/cli-io.js';
import { main as agentMain } from '../../node-agent/cli/program.js';
import { DOUBLE_BACKENDS } from './double-backends.js';

export function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  return agentMain(argv, { ...io, backends: io.backends ?? DOUBLE_BACKENDS });
}

if (/(^|[\\/])node-agent-doubles[\\/]main\.[cm]?[jt]s$/.test(process.argv[1] ?? '')) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
