/**
 * Why a unit failed, in its own words: the last error its program logged in the journal. A
 * kubelet that rejects its configuration exits with `"command failed" err="failed to validate
 * kubelet configuration, error: invalid configuration: …"` (kubernetes v1.34.4
 * cmd/kubelet/app/server.go); the agent puts that into its report, so whoever reads the Node sees
 * the kubelet's reason, not only that the unit is not active.
 */
import { execFile } from 'node:child_process';

/** The last error a unit logged: klog's `err="…"`, else the last line that says error or failed. Pure. */
export function lastErrorOf(journal: string): string | undefined {
  const lines = journal.split('\n').filter((l) => l.trim());
  for (const line of lines.reverse()) {
    const err = /\berr="((?:[^"\\]|\\.)*)"/.exec(line);
    if (err) return err[1]!.replaceAll('\\"', '"');
  }
  return lines.find((l) => /error|failed/i.test(l))?.trim();
}

export type UnitReason = (unit: string) => Promise<string | undefined>;

/** Reads the unit's last journal lines with the machine's journalctl. */
export function journalUnitReason(env: NodeJS.ProcessEnv = process.env, lines = 30): UnitReason {
  return (unit) =>
    new Promise((resolve) => {
      execFile(
        'journalctl',
        ['--no-pager', '-o', 'cat', '-n', String(lines), '-u', unit],
        { env, timeout: 5_000, maxBuffer: 1 << 20 },
        (error, stdout) => resolve(error ? undefined : lastErrorOf(stdout)),
      );
    });
}
