/**
 * `gardener-osc` loads only the command that runs (the controller-manager's Kubernetes client alone
 * takes over a second to load), yet `--help` lists every command with its real description.
 */
import { expect } from 'chai';
import { Command } from 'commander';
import { buildProgram, COMMANDS, commandOf } from '../../cli/main.js';

/** A command's own options, without the `--log-level` every command gets. */
const ownOptions = (command: Command) => command.options.filter((o) => o.long !== '--log-level');

describe('gardener-osc: lazily loaded commands', () => {
  it('finds the command a command line runs', () => {
    const cases: [string[], string | undefined][] = [
      [['--version'], undefined],
      [[], undefined],
      [['render', '--cluster', 'x.yaml'], 'render'],
      [['--help', 'manifests'], 'manifests'],
      [['help', 'crds'], 'crds'],
      [['help'], undefined],
      // completion describes every command
      [['completion', 'bash'], 'all'],
    ];
    for (const [argv, name] of cases) expect(commandOf(argv), argv.join(' ')).to.equal(name);
  });

  it('lists every command by its summary, each equal to the description the command itself has', async () => {
    const io = {
      stdout: process.stdout,
      stderr: process.stderr,
      stderrIsTerminal: false,
      readStdin: () => '',
    };
    for (const [name, { summary, load }] of Object.entries(COMMANDS)) {
      const program = new Command();
      (await load())(program, { commandIo: () => ({}) as never, io });
      expect(program.commands.map((c) => c.name())).to.deep.equal([name]);
      expect(program.commands[0]!.description(), name).to.equal(summary);
    }
  });

  it('loads only the wanted command; the others are listed without their options', async () => {
    const bare = await buildProgram(undefined);
    expect(bare.commands.map((c) => c.name())).to.deep.equal(Object.keys(COMMANDS));
    expect(bare.commands.flatMap(ownOptions)).to.deep.equal([]);
    const crds = await buildProgram('crds');
    expect(crds.commands.filter((c) => ownOptions(c).length > 0).map((c) => c.name())).to.deep.equal([
      'crds',
    ]);
    const all = await buildProgram('all');
    const withOptions = all.commands.filter(
      // a command group (rollout) is loaded when it has its subcommands
      (c) => ownOptions(c).length > 0 || c.registeredArguments.length > 0 || c.commands.length > 0,
    );
    expect(withOptions.map((c) => c.name())).to.deep.equal(Object.keys(COMMANDS));
  });
});
