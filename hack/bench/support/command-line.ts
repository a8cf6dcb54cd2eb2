/**
 * The command line every benchmark here shares: its own options with their defaults, `--quick`
 * (a tiny size of every dimension, so `npm test` can run each benchmark end to end in seconds and
 * notice when one no longer runs; its figures mean nothing), and `--help` (usage, and how long a
 * run at the defaults takes). An option given explicitly wins over its quick size.
 */
import { parseArgs } from 'node:util';

type OptionSpec =
  | { readonly type: 'string'; readonly default: string; readonly quick?: string }
  | { readonly type: 'boolean'; readonly default: boolean; readonly quick?: boolean };

type Values<S extends Record<string, OptionSpec>> = {
  -readonly [K in keyof S]: S[K] extends { type: 'string' } ? string : boolean;
};

export interface BenchCommandLine<S extends Record<string, OptionSpec>> {
  readonly values: Values<S>;
  /** Whether this is a `--quick` run (a smoke run: its figures mean nothing). */
  readonly quick: boolean;
}

export interface BenchCommandLineSpec<S extends Record<string, OptionSpec>> {
  /** The script's path, e.g. `hack/bench/render.ts`. */
  readonly script: string;
  /** How long a run takes at the defaults and with `--quick` (shown by `--help`). */
  readonly duration: string;
  readonly options: S;
  readonly argv?: readonly string[];
}

export function usageOf(spec: BenchCommandLineSpec<Record<string, OptionSpec>>): string {
  const flags = Object.entries(spec.options).map(([name, o]) =>
    o.type === 'boolean' ? `[--${name}]` : `[--${name} ${o.default}]`,
  );
  return `usage: npx tsx ${spec.script} ${[...flags, '[--quick]'].join(' ')}\n${spec.duration}\n`;
}

/** Parses the command line; `--help` prints the usage and exits 0, a bad option exits 2. */
export function benchCommandLine<S extends Record<string, OptionSpec>>(
  spec: BenchCommandLineSpec<S>,
): BenchCommandLine<S> {
  const options = Object.fromEntries(
    Object.entries(spec.options).map(([name, o]) => [name, { type: o.type }]),
  ) as Record<string, { type: 'string' | 'boolean' }>;
  let parsed: Record<string, string | boolean | undefined>;
  try {
    parsed = parseArgs({
      args: [...(spec.argv ?? process.argv.slice(2))],
      options: { ...options, quick: { type: 'boolean' }, help: { type: 'boolean' } },
      strict: true,
    }).values as Record<string, string | boolean | undefined>;
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${usageOf(spec)}`);
    process.exit(2);
  }
  if (parsed.help) {
    process.stdout.write(usageOf(spec));
    process.exit(0);
  }
  const quick = parsed.quick === true;
  const values: Record<string, string | boolean> = {};
  for (const [name, o] of Object.entries(spec.options)) {
    values[name] = parsed[name] ?? (quick && o.quick !== undefined ? o.quick : o.default);
  }
  return { values: values as Values<S>, quick };
}

/** The header line a quick run prints first, so nobody mistakes its figures for a measurement. */
export const QUICK_NOTICE = '(--quick: a smoke run at a tiny size; these figures are not a measurement)';
