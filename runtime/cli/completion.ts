/**
 * Shell completion for bash, zsh and fish, generated from the commander program itself, so it
 * always knows the commands, their subcommands (`rollout status`), options and choices the
 * executable has. Options whose value names a file (`<file>`) or directory (`<dir>`) complete
 * paths; options with choices complete those.
 */
import { Argument, type Command, type Option } from 'commander';

export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
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
  /** The choices of its positional arguments (`completion bash|zsh|fish`). */
  readonly words: readonly string[];
  /** Its own commands (`rollout status`). */
  readonly subcommands: readonly CommandSpec[];
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
    subcommands: c.commands.map((sub) => spec(sub)),
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

/** Every command and subcommand with its key (`rollout_status`) and parent key (`''` at the top). */
function flatten(
  commands: readonly CommandSpec[],
  parent = '',
): { key: string; parent: string; spec: CommandSpec }[] {
  return commands.flatMap((c) => {
    const key = parent ? `${parent}_${c.name}` : c.name;
    return [{ key, parent, spec: c }, ...flatten(c.subcommands, key)];
  });
}

export function bashCompletion(program: Command): string {
  const name = program.name();
  const fn = functionName(name);
  const { root, commands } = specOf(program);
  const all = flatten(commands);
  const words = (c: CommandSpec) =>
    [...c.subcommands.map((s) => s.name), ...c.words, ...c.options.flatMap((o) => o.flags)].join(' ');
  return [
    `# bash completion for ${name}; load with: source <(${name} completion bash)`,
    `${fn}() {`,
    `  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" i`,
    '  # the command, then its subcommand: cmd becomes e.g. rollout_status',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    `    case "$cmd:\${COMP_WORDS[i]}" in`,
    ...all.map((c) => `      ${c.parent}:${c.spec.name}) cmd="${c.key}" ;;`),
    '    esac',
    '  done',
    '  case "$cmd:$prev" in',
    ...all.flatMap((c) => bashValueCase(c.key, c.spec.options)),
    '  esac',
    '  case "$cmd" in',
    ...all.map((c) => `    ${c.key}) mapfile -t COMPREPLY < <(compgen -W "${words(c.spec)}" -- "$cur") ;;`),
    `    *) mapfile -t COMPREPLY < <(compgen -W "${words(root)}" -- "$cur") ;;`,
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

const zshDescribed = (c: CommandSpec) => `'${c.name}:${c.description.replace(/'/g, "'\\''")}'`;

/** What completes after a command's name: its options, or first its subcommands. */
function zshCommandBody(c: CommandSpec, indent: string): string[] {
  if (c.subcommands.length > 0) {
    return [
      `${indent}if (( CURRENT == 2 )); then`,
      `${indent}  local -a subcommands`,
      `${indent}  subcommands=(${c.subcommands.map(zshDescribed).join(' ')})`,
      `${indent}  _describe '${c.name} command' subcommands`,
      `${indent}else`,
      // the subcommand's words start at its own name, as the command's did
      `${indent}  shift words; (( CURRENT-- ))`,
      `${indent}  case $words[1] in`,
      ...c.subcommands.flatMap((sub) => [
        `${indent}    ${sub.name})`,
        ...zshCommandBody(sub, `${indent}      `),
        `${indent}      ;;`,
      ]),
      `${indent}  esac`,
      `${indent}fi`,
    ];
  }
  const specs = [
    ...c.options.map(zshOption),
    ...(c.words.length > 0 ? [`'1:${c.name}:(${c.words.join(' ')})'`] : []),
  ];
  return [`${indent}_arguments \\`, `${indent}  ${specs.join(` \\\n${indent}  `)}`];
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
    ...commands.map((c) => `    ${zshDescribed(c)}`),
    '  )',
    '  _arguments -C \\',
    ...root.options.map((o) => `    ${zshOption(o)} \\`),
    "    '1: :->command' \\",
    "    '*:: :->args'",
    '  case $state in',
    "    command) _describe 'command' commands ;;",
    '    args)',
    '      case $line[1] in',
    ...commands.flatMap((c) => [`        ${c.name})`, ...zshCommandBody(c, '          '), '          ;;']),
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

/** fish quotes: single quotes, with `\\` and `\'` the only escapes inside. */
const fishText = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function fishOption(o: OptionSpec): string {
  const flags = o.flags.map((f) => (f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`)).join(' ');
  const value =
    o.value === undefined
      ? ''
      : o.value === 'file'
        ? ' -r -F'
        : o.value === 'dir'
          ? " -x -a '(__fish_complete_directories)'"
          : o.value === 'text'
            ? ' -x'
            : ` -x -a ${fishText(o.value.join(' '))}`;
  return `${flags}${value} -d ${fishText(o.description)}`;
}

export function fishCompletion(program: Command): string {
  const name = program.name();
  const { root, commands } = specOf(program);
  const all = flatten(commands);
  const top = commands.map((c) => c.name).join(' ');
  // a command's condition: its own words were seen, and none of its subcommands yet
  const condition = (key: string, spec: CommandSpec): string => {
    const path = key.split('_');
    const seen = path.map((word) => `__fish_seen_subcommand_from ${word}`).join('; and ');
    const subs = spec.subcommands.map((s) => s.name).join(' ');
    return subs ? `${seen}; and not __fish_seen_subcommand_from ${subs}` : seen;
  };
  const lines = [
    `# fish completion for ${name}; load with: ${name} completion fish | source`,
    `complete -c ${name} -f`,
    ...root.options.map(
      (o) => `complete -c ${name} -n ${fishText(`not __fish_seen_subcommand_from ${top}`)} ${fishOption(o)}`,
    ),
    ...commands.map(
      (c) => `complete -c ${name} -n __fish_use_subcommand -a ${c.name} -d ${fishText(c.description)}`,
    ),
  ];
  for (const { key, spec } of all) {
    const when = fishText(condition(key, spec));
    for (const sub of spec.subcommands)
      lines.push(`complete -c ${name} -n ${when} -a ${sub.name} -d ${fishText(sub.description)}`);
    if (spec.words.length > 0)
      lines.push(`complete -c ${name} -n ${when} -a ${fishText(spec.words.join(' '))}`);
    for (const o of spec.options) lines.push(`complete -c ${name} -n ${when} ${fishOption(o)}`);
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(program: Command, shell: CompletionShell): string {
  if (shell === 'bash') return bashCompletion(program);
  return shell === 'zsh' ? zshCompletion(program) : fishCompletion(program);
}

/** `<program> completion bash|zsh|fish`: prints the script (e.g. `source <(gardener-osc completion bash)`). */
export function addCompletionCommand(program: Command, write: (text: string) => void): void {
  const name = program.name();
  program
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(COMPLETION_SHELLS))
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        `  source <(${name} completion bash)                       # this shell`,
        `  ${name} completion bash > /etc/bash_completion.d/${name}   # every bash`,
        `  ${name} completion zsh > "\${fpath[1]}/_${name}"            # zsh`,
        `  ${name} completion fish > ~/.config/fish/completions/${name}.fish   # fish`,
        '',
      ].join('\n'),
    )
    .action((shell: CompletionShell) => write(completionScript(program, shell)));
}
