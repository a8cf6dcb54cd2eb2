/**
 * The command-line habits both executables share (kubectl, helm): `--help` marks required options
 * and ends with examples; every command takes `--log-level`.
 */
import { type Command, Help, Option } from 'commander';
import { LOG_LEVELS } from './warnings.js';

export function logLevelOption(defaultLevel?: string): Option {
  const option = new Option(
    '--log-level <level>',
    'the least severe messages printed on standard error',
  ).choices(LOG_LEVELS);
  return defaultLevel === undefined ? option : option.default(defaultLevel);
}

class MarkedHelp extends Help {
  override optionDescription(option: Option): string {
    const text = super.optionDescription(option);
    return option.mandatory ? `${text} (required)` : text;
  }
}

/** Every command of `program`, depth first. */
export function allCommands(program: Command): Command[] {
  return [program, ...program.commands.flatMap((c) => allCommands(c))];
}

/**
 * Marks required options in every command's help, adds `--log-level` where a command lacks it, and
 * appends the examples given per command name (`''` is the program itself).
 */
export function addCliHabits(program: Command, examples: Readonly<Record<string, readonly string[]>>): void {
  for (const command of allCommands(program)) {
    // one prefix for every error, commander's parse errors too (`error: unknown option` otherwise)
    command.configureOutput({
      outputError: (text, write) => write(text.replace(/^error: /, `${program.name()}: `)),
    });
    command.createHelp = () => Object.assign(new MarkedHelp(), command.configureHelp());
    if (command !== program && !command.options.some((o) => o.long === '--log-level'))
      command.addOption(logLevelOption());
    const lines = examples[command === program ? '' : command.name()];
    if (lines && lines.length > 0)
      command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  }
}
