/**
 * `gardener-osc`: the seed-side command line. Exit codes: 0 done, 1 failed while working (an
 * operating system refusal such as EEXIST, EACCES or EADDRINUSE is one line naming what and
 * where), 2 bad input or usage, 3 `plan --exit-code` found a change.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { addCompletionCommand } from '../runtime/cli/completion.js';
import { EXIT, UsageError } from '../runtime/cli/exit-codes.js';
import { ExitStatus } from '../runtime/cli/exit-status.js';
import { addCliHabits } from '../runtime/cli/help.js';
import { readProcessStdin } from '../runtime/cli/input-file.js';
import { isSystemError, systemErrorLine } from '../runtime/cli/system-error.js';
import { type CliLogLevel, createNotices } from '../runtime/cli/warnings.js';
import { addControllerManagerCommand } from './controller-manager-command.js';
import { addCrdsCommand } from './crds-command.js';
import { addDelaysCommand } from './delays-command.js';
import { addManifestsCommand } from './manifests-command.js';
import { addPlanCommand } from './plan-command.js';
import { addRenderCommand } from './render-command.js';

const PROGRAM = 'gardener-osc';

const EXAMPLES: Record<string, readonly string[]> = {
  render: [
    'gardener-osc render                                   # the example shoot (examples/cluster.yaml)',
    'gardener-osc render --cluster cluster.yaml --values values.yaml --target shoot --output out/',
    'kubectl get cluster shoot--dev--demo -o yaml | gardener-osc render --cluster - --values values.yaml -o json',
  ],
  plan: [
    'gardener-osc plan --cluster cluster.yaml --next cluster-new.yaml --values values.yaml',
    "gardener-osc plan --cluster a.yaml --next b.yaml -o json | jq '.pools[] | select(.changed) | .name'",
    'gardener-osc plan --cluster a.yaml --next b.yaml --exit-code || echo "nodes will change (exit 3)"',
  ],
  delays: [
    'kubectl get nodes -o yaml | gardener-osc delays --nodes - --max 5m',
    'gardener-osc delays --nodes nodes.yaml --previous delays.yaml -o json',
  ],
  crds: ['gardener-osc crds | kubectl apply -f -', 'gardener-osc crds --output hack/crds'],
  'controller-manager': ['gardener-osc controller-manager --config examples/controller-manager.yaml'],
  manifests: ['gardener-osc manifests --config examples/controller-manager.yaml | kubectl apply -f -'],
};

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export interface MainIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly stderrIsTerminal: boolean;
  readonly readStdin: () => string;
}

const processIo: MainIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  get stderrIsTerminal() {
    return Boolean(process.stderr.isTTY);
  },
  readStdin: readProcessStdin,
};

export function buildProgram(io: MainIo = processIo): Command {
  const program = new Command(PROGRAM)
    .description("Gardener's node configuration, seed side: renders and reconciles OperatingSystemConfigs")
    .version(packageVersion())
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)');
  // one sink per run, so a warning found twice (e.g. in both renders of a plan) is printed once
  let notices: ReturnType<typeof createNotices> | undefined;
  const noticesAt = (level?: CliLogLevel) => (notices ??= createNotices(PROGRAM, io.stderr, level));
  const commandIo = (level?: CliLogLevel) => ({
    stdout: io.stdout,
    notices: noticesAt(level),
    terminal: io.stderrIsTerminal,
    readStdin: io.readStdin,
  });
  addRenderCommand(program, commandIo);
  addPlanCommand(program, commandIo);
  addDelaysCommand(program, commandIo);
  addCrdsCommand(program, commandIo);
  addControllerManagerCommand(program, io.readStdin);
  addManifestsCommand(program, io.readStdin);
  addCompletionCommand(program, (text) => io.stdout.write(text));
  addCliHabits(program, EXAMPLES);
  for (const command of program.commands) {
    command
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  }
  return program;
}

/** `gardener-osc render | head` must end quietly when the reader goes away. */
function exitQuietlyOnBrokenPipe(): void {
  process.stdout.once('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(EXIT.ok);
    throw e;
  });
}

export async function main(argv: readonly string[], io: MainIo = processIo): Promise<number> {
  if (io === processIo) exitQuietlyOnBrokenPipe();
  const fail = (code: number, message: string) => {
    io.stderr.write(`${PROGRAM}: ${message}\n`);
    return code;
  };
  try {
    await buildProgram(io).parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (e) {
    if (e instanceof ExitStatus) return e.code;
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    if (e instanceof UsageError) return fail(EXIT.badInput, e.message);
    if (isSystemError(e)) return fail(EXIT.failed, systemErrorLine(e));
    return fail(EXIT.failed, (e as Error).stack ?? String(e));
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
