/** `gardener-node-agent`: the node side's command line. Usage errors exit 2, failures 1. */
import { Command, CommanderError } from 'commander';
import { formatFieldErrors, ValidationError } from '../../api/index.js';
import { NODE_AGENT_VERSION } from '../version.js';
import { addApplyCommand } from './apply-command.js';
import { addBootstrapCommand } from './bootstrap-command.js';
import { type CliIo, processIo } from './cli-io.js';
import { EXIT, UsageError } from './exit-codes.js';
import { addPlanCommand } from './plan-command.js';
import { addRunCommand } from './run-command.js';

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
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    if (e instanceof UsageError) return fail(EXIT.badInput, e.message);
    if (e instanceof ValidationError) {
      return fail(EXIT.badInput, `invalid ${e.what}:\n${formatFieldErrors(e.errors)}`);
    }
    return fail(EXIT.failed, (e as Error).message ?? String(e));
  }
}
