/** `gardener-osc`: the seed-side command line. Usage errors exit 2, failures 1. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { addControllerManagerCommand } from './controller-manager-command.js';
import { addCrdsCommand } from './crds-command.js';
import { addDelaysCommand } from './delays-command.js';
import { EXIT, UsageError } from './exit-codes.js';
import { addManifestsCommand } from './manifests-command.js';
import { addRenderCommand } from './render-command.js';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export function buildProgram(): Command {
  const program = new Command('gardener-osc')
    .description("Gardener's node configuration, seed side: renders and reconciles OperatingSystemConfigs")
    .version(packageVersion())
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  addRenderCommand(program);
  addDelaysCommand(program);
  addCrdsCommand(program);
  addControllerManagerCommand(program);
  addManifestsCommand(program);
  return program;
}

/** `gardener-osc render | head` must end quietly when the reader goes away. */
function exitQuietlyOnBrokenPipe(): void {
  process.stdout.once('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(EXIT.ok);
    throw e;
  });
}

export async function main(argv: readonly string[]): Promise<number> {
  exitQuietlyOnBrokenPipe();
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    if (e instanceof UsageError) {
      process.stderr.write(`gardener-osc: ${e.message}\n`);
      return EXIT.badInput;
    }
    process.stderr.write(`gardener-osc: ${(e as Error).stack ?? String(e)}\n`);
    return EXIT.failed;
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
