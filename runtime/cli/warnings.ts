/**
 * What a command tells on standard error besides its output: warnings, each printed once however
 * often it comes up (rendering two Clusters for a plan finds the same problem twice), and notes
 * (what was written, a summary), both filtered by `--log-level` as the logs are.
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type CliLogLevel = (typeof LOG_LEVELS)[number];

export interface Notices {
  warn(message: string): void;
  info(message: string): void;
}

export function createNotices(
  program: string,
  stderr: { write(text: string): unknown },
  level: CliLogLevel = 'info',
): Notices {
  const rank = (l: CliLogLevel) => LOG_LEVELS.indexOf(l);
  const seen = new Set<string>();
  return {
    warn(message) {
      if (rank(level) > rank('warn') || seen.has(message)) return;
      seen.add(message);
      stderr.write(`${program}: warning: ${message}\n`);
    },
    info(message) {
      if (rank(level) > rank('info')) return;
      stderr.write(`${program}: ${message}\n`);
    },
  };
}
