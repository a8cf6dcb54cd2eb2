/**
 * `gardener-osc`: the seed-side command line. Exit codes: 0 done, 1 failed while working (an
 * operating system refusal such as EEXIST, EACCES or EADDRINUSE is one line naming what and
 * where), 2 bad input or usage, 3 `plan --exit-code` found a change.
 *
 * Each command's module is loaded only when that command runs: the controller-manager alone pulls
 * in @kubernetes/client-node (over a second of module loading), so `--version`, `--help` and every
 * other command start without it. The summaries below are what `--help` lists without loading a
 * command; a test keeps each equal to its command's own description.
 */
import { Command, CommanderError } from 'commander';
import { VERSION } from '../api/version.js';
import { EXIT, UsageError } from '../runtime/cli/exit-codes.js';
import { ExitStatus } from '../runtime/cli/exit-status.js';
import { addCliHabits } from '../runtime/cli/help.js';
import { readProcessStdin } from '../runtime/cli/input-file.js';
import { isSystemError, systemErrorLine } from '../runtime/cli/system-error.js';
import { type CliLogLevel, createNotices } from '../runtime/cli/warnings.js';

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
  rollout: ['gardener-osc rollout status --shoot shoot--dev--demo'],
  status: [
    'gardener-osc rollout status --shoot shoot--dev--demo --kubeconfig seed.yaml',
    'kubectl get configmap -n shoot--dev--demo gardener-node-agent-rollout -o yaml | gardener-osc rollout status --file -',
    'gardener-osc rollout status --shoot shoot--dev--demo -o json | jq ".[] | select(.phase == \\"Halted\\")"',
  ],
};

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

type CommandIo = (level?: CliLogLevel) => {
  stdout: MainIo['stdout'];
  notices: ReturnType<typeof createNotices>;
  terminal: boolean;
  readStdin: () => string;
};

/** What a command's `add…Command` is given. */
interface CommandContext {
  readonly commandIo: CommandIo;
  readonly io: MainIo;
}

type AddCommand = (program: Command, context: CommandContext) => void;

export interface LazyCommand {
  readonly summary: string;
  readonly load: () => Promise<AddCommand>;
}

export const COMMANDS: Readonly<Record<string, LazyCommand>> = {
  render: {
    summary: "render a shoot's node configuration as gardenlet does (default: examples/cluster.yaml)",
    load: async () => {
      const { addRenderCommand } = await import('./render-command.js');
      return (program, { commandIo }) => addRenderCommand(program, commandIo);
    },
  },
  plan: {
    summary:
      'show what changing a shoot from one Cluster to the next does to its nodes, per worker pool: units restarted and why, files changed, the rollout',
    load: async () => {
      const { addPlanCommand } = await import('./plan-command.js');
      return (program, { commandIo }) => addPlanCommand(program, commandIo);
    },
  },
  delays: {
    summary:
      'assign every node a reconciliation delay (node-agent.gardener.cloud/reconciliation-delay), spread, stable and zone-aware',
    load: async () => {
      const { addDelaysCommand } = await import('./delays-command.js');
      return (program, { commandIo }) => addDelaysCommand(program, commandIo);
    },
  },
  crds: {
    summary: 'print the CRDs of OperatingSystemConfig, Cluster and ManagedResource (multi-document YAML)',
    load: async () => {
      const { addCrdsCommand } = await import('./crds-command.js');
      return (program, { commandIo }) => addCrdsCommand(program, commandIo);
    },
  },
  'controller-manager': {
    summary:
      'run the seed-side controllers (operatingsystemconfig, migration, node-delay, token-labels, token-requestor in direct mode, os-local, rollout, node-agent-csr-approver and node-agent-authorizer with per-node identities) for the Clusters the configuration selects',
    load: async () => {
      const { addControllerManagerCommand } = await import('./controller-manager-command.js');
      return (program, { io }) => addControllerManagerCommand(program, io.readStdin);
    },
  },
  manifests: {
    summary:
      'print the seed manifests that run the controller-manager (or, with --shoot-role, its minimum shoot role)',
    load: async () => {
      const { addManifestsCommand } = await import('./manifests-command.js');
      return (program, { io }) => addManifestsCommand(program, io.readStdin);
    },
  },
  rollout: {
    summary: 'the rollout gate: waves, health gate, halt (docs/rollout.md)',
    load: async () => {
      const { addRolloutCommand } = await import('./rollout-command.js');
      return (program, { commandIo }) => addRolloutCommand(program, commandIo);
    },
  },
  completion: {
    summary: 'print the shell completion script for bash, zsh or fish',
    load: async () => {
      const { addCompletionCommand } = await import('../runtime/cli/completion.js');
      return (program, { io }) => addCompletionCommand(program, (text) => io.stdout.write(text));
    },
  },
};

/**
 * The command a command line runs (`help NAME` runs NAME's help; `completion` needs every command
 * to describe them); undefined for the program's own options.
 */
export function commandOf(argv: readonly string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  const name = words[0] === 'help' ? words[1] : words[0];
  return name === 'completion' ? 'all' : name;
}

/** The program with the command `wanted` (`'all'`: every command) loaded; the others only listed. */
export async function buildProgram(wanted: string | undefined, io: MainIo = processIo): Promise<Command> {
  const program = new Command(PROGRAM)
    .description("Gardener's node configuration, seed side: renders and reconciles OperatingSystemConfigs")
    .version(VERSION)
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
  for (const [name, command] of Object.entries(COMMANDS)) {
    if (wanted === 'all' || wanted === name) (await command.load())(program, { commandIo, io });
    else program.command(name).description(command.summary);
  }
  addCliHabits(program, EXAMPLES);
  for (const command of program.commands) {
    command
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  }
  return program;
}

/**
 * An error of a class, recognised by its name too: under the test loader (tsx's CommonJS hook
 * beside its ESM loader) a lazily imported command can get its own copy of the module that defines
 * the class.
 */
function isA<T extends Error>(e: unknown, type: new (...args: never[]) => T): e is T {
  return e instanceof type || (e instanceof Error && e.name === type.name);
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
    await (await buildProgram(commandOf(argv), io)).parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (e) {
    if (isA(e, ExitStatus)) return e.code;
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    if (isA(e, UsageError)) return fail(EXIT.badInput, e.message);
    if (isSystemError(e)) return fail(EXIT.failed, systemErrorLine(e));
    return fail(EXIT.failed, (e as Error).stack ?? String(e));
  }
}

// as a program under tsx (npm run osc); no top-level await, so the CLI also bundles as CommonJS
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
