/**
 * `gardener-node-agent`: the node side's command line. Exit codes: 0 done, 1 failed (an operating
 * system refusal such as EACCES or EADDRINUSE is one line), 2 bad input or usage, 3 `plan
 * --exit-code` found a change.
 */
import { Command, CommanderError } from 'commander';
import { formatFieldErrors, ValidationError } from '../../api/index.js';
import { addCompletionCommand } from '../../runtime/cli/completion.js';
import { EXIT, UsageError } from '../../runtime/cli/exit-codes.js';
import { ExitStatus } from '../../runtime/cli/exit-status.js';
import { addCliHabits } from '../../runtime/cli/help.js';
import { isSystemError, systemErrorLine } from '../../runtime/cli/system-error.js';
import { NODE_AGENT_VERSION } from '../version.js';
import { addApplyCommand } from './apply-command.js';
import { addBootstrapCommand } from './bootstrap-command.js';
import { type CliIo, processIo } from './cli-io.js';
import { addPlanCommand } from './plan-command.js';
import { addRunCommand } from './run-command.js';

const EXAMPLES: Record<string, readonly string[]> = {
  run: [
    'gardener-node-agent                       # as its unit runs it: --config /var/lib/gardener-node-agent/config.yaml, root /',
  ],
  plan: [
    'gardener-node-agent plan --previous /var/lib/gardener-node-agent/last-applied-osc.yaml --next osc.yaml',
    "kubectl -n kube-system get secret gardener-node-agent-cpu-worker-46fed -o jsonpath='{.data.osc\\.yaml}' \\",
    '  | base64 -d | gardener-node-agent plan --previous last-applied-osc.yaml --next -',
    'gardener-node-agent plan --next osc.yaml -o json     # a first apply, for tools',
  ],
  apply: ['gardener-node-agent apply --osc osc.yaml --root /       # the node itself, with systemctl'],
  bootstrap: ['gardener-node-agent bootstrap             # as gardener-node-init.service runs it'],
};

export function buildProgram(io: CliIo = processIo): Command {
  const program = new Command('gardener-node-agent')
    .description("Gardener's node agent: applies OperatingSystemConfigs to the node it runs on")
    .version(NODE_AGENT_VERSION)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)');
  addRunCommand(program, io);
  addPlanCommand(program, io);
  addApplyCommand(program, io);
  addBootstrapCommand(program, io);
  addCompletionCommand(program, (text) => io.stdout.write(text));
  addCliHabits(program, EXAMPLES);
  // Subcommands inherit neither exitOverride nor the output streams.
  for (const command of program.commands) {
    command
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  }
  return program;
}

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const fail = (code: number, message: string) => {
    io.stderr.write(`gardener-node-agent: ${message}\n`);
    return code;
  };
  try {
    await buildProgram(io).parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (e) {
    if (e instanceof ExitStatus) return e.code;
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    if (e instanceof UsageError) return fail(EXIT.badInput, e.message);
    if (e instanceof ValidationError) {
      return fail(EXIT.badInput, `invalid ${e.what}:\n${formatFieldErrors(e.errors)}`);
    }
    if (isSystemError(e)) return fail(EXIT.failed, systemErrorLine(e));
    return fail(EXIT.failed, (e as Error).message ?? String(e));
  }
}
