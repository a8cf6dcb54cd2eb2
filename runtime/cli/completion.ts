/**
 * Shell completion for bash and zsh, generated from the commander program itself, so it always
 * knows the commands, options and choices the executable has. Options whose value names a file
 * (`<file>`) or directory (`<dir>`) complete paths; options with choices complete those.
 */
import { Argument, type Command, type Option } from 'commander';

export const COMPLETION_SHELLS = ['bash', 'zsh'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

interface OptionSpec {
  readonly flags: readonly string[];
  readonly description: string;
  readonly value?: 'file' | 'dir' | readonly string[] | 'text';
}

interface CommandSpec {
  readonly name: string;
  readonly description: string;
  readonly options: readonly OptionSpec[];
  /** The choices of its positional arguments (`completion bash|zsh`). */
  readonly words: readonly string[];
}

function optionSpec(option: Option): OptionSpec {
  const flags = [option.long, option.short].filter((f): f is string => Boolean(f));
  const takes = option.required || option.optional;
  let value: OptionSpec['value'];
  if (takes) {
    if (option.argChoices) value = option.argChoices;
    else if (/<(file|config|osc)[^>]*>/.test(option.flags)) value = 'file';
    else if (/<dir[^>]*>/.test(option.flags)) value = 'dir';
    else value = 'text';
  }
  return { flags, description: option.description, ...(value ? { value } : {}) };
}

const HELP: OptionSpec = { flags: ['--help', '-h'], description: 'display help' };

function specOf(program: Command): { root: CommandSpec; commands: CommandSpec[] } {
  const spec = (c: Command, extra: OptionSpec[] = []): CommandSpec => ({
    name: c.name(),
    description: c.description(),
    options: [...c.options.map(optionSpec), ...extra, HELP],
    words: c.registeredArguments.flatMap((a) => a.argChoices ?? []),
  });
  return { root: spec(program), commands: program.commands.map((c) => spec(c)) };
}

const functionName = (program: string) => `_${program.replace(/[^A-Za-z0-9]/g, '_')}`;

function bashValueCase(command: string, options: readonly OptionSpec[]): string[] {
  const lines: string[] = [];
  for (const o of options) {
    if (!o.value) continue;
    const patterns = o.flags.map((f) => `${command}:${f}`).join('|');
    const reply =
      o.value === 'file'
        ? 'compgen -f -- "$cur"'
        : o.value === 'dir'
          ? 'compgen -d -- "$cur"'
          : o.value === 'text'
            ? 'true'
            : `compgen -W "${o.value.join(' ')}" -- "$cur"`;
    lines.push(`    ${patterns}) mapfile -t COMPREPLY < <(${reply}); return ;;`);
  }
  return lines;
}

export function bashCompletion(program: Command): string {
  const name = program.name();
  const fn = functionName(name);
  const { root, commands } = specOf(program);
  const words = (c: CommandSpec) => [...c.words, ...c.options.flatMap((o) => o.flags)].join(' ');
  return [
    `# bash completion for ${name}; load with: source <(${name} completion bash)`,
    `${fn}() {`,
    `  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" i`,
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    `    case "\${COMP_WORDS[i]}" in`,
    `      ${commands.map((c) => c.name).join('|')}) cmd="\${COMP_WORDS[i]}"; break ;;`,
    '    esac',
    '  done',
    '  case "$cmd:$prev" in',
    ...commands.flatMap((c) => bashValueCase(c.name, c.options)),
    '  esac',
    '  case "$cmd" in',
    ...commands.map((c) => `    ${c.name}) mapfile -t COMPREPLY < <(compgen -W "${words(c)}" -- "$cur") ;;`),
    `    *) mapfile -t COMPREPLY < <(compgen -W "${commands.map((c) => c.name).join(' ')} ${words(root)}" -- "$cur") ;;`,
    '  esac',
    '}',
    `complete -o default -F ${fn} ${name}`,
    '',
  ].join('\n');
}

/** zsh `_arguments` specs: `[`, `]`, `:` and `'` escaped. */
const zshText = (s: string) =>
  s
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "'\\''")
    .replace(/([[\]:])/g, '\\$1');

function zshOption(o: OptionSpec): string {
  const action =
    o.value === undefined
      ? ''
      : o.value === 'file'
        ? ':file:_files'
        : o.value === 'dir'
          ? ':directory:_files -/'
          : o.value === 'text'
            ? ':value: '
            : `:value:(${o.value.join(' ')})`;
  const flags = o.flags.length > 1 ? `(${o.flags.join(' ')})'{${o.flags.join(',')}}'` : o.flags[0]!;
  return `'${flags}[${zshText(o.description)}]${action}'`;
}

export function zshCompletion(program: Command): string {
  const name = program.name();
  const fn = functionName(name);
  const { root, commands } = specOf(program);
  return [
    `#compdef ${name}`,
    `# zsh completion for ${name}; load with: source <(${name} completion zsh)`,
    `${fn}() {`,
    '  local state line',
    '  local -a commands',
    '  commands=(',
    ...commands.map((c) => `    '${c.name}:${c.description.replace(/'/g, "'\\''")}'`),
    '  )',
    '  _arguments -C \\',
    ...root.options.map((o) => `    ${zshOption(o)} \\`),
    "    '1: :->command' \\",
    "    '*:: :->args'",
    '  case $state in',
    "    command) _describe 'command' commands ;;",
    '    args)',
    '      case $line[1] in',
    ...commands.flatMap((c) => {
      const specs = [
        ...c.options.map(zshOption),
        ...(c.words.length > 0 ? [`'1:${c.name}:(${c.words.join(' ')})'`] : []),
      ];
      return [
        `        ${c.name})`,
        '          _arguments \\',
        `            ${specs.join(' \\\n            ')}`,
        '          ;;',
      ];
    }),
    '      esac',
    '      ;;',
    '  esac',
    '}',
    `if [ "\${funcstack[1]}" = "${fn}" ]; then`,
    `  ${fn} "$@"`,
    'else',
    `  compdef ${fn} ${name}`,
    'fi',
    '',
  ].join('\n');
}

export function completionScript(program: Command, shell: CompletionShell): string {
  return shell === 'bash' ? bashCompletion(program) : zshCompletion(program);
}

/** `<program> completion bash|zsh`: prints the script (e.g. `source <(gardener-osc completion bash)`). */
export function addCompletionCommand(program: Command, write: (text: string) => void): void {
  const name = program.name();
  program
    .command('completion')
    .description('print the shell completion script for bash or zsh')
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(COMPLETION_SHELLS))
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        `  source <(${name} completion bash)                       # this shell`,
        `  ${name} completion bash > /etc/bash_completion.d/${name}   # every bash`,
        `  ${name} completion zsh > "\${fpath[1]}/_${name}"            # zsh`,
        '',
      ].join('\n'),
    )
    .action((shell: CompletionShell) => write(completionScript(program, shell)));
}
