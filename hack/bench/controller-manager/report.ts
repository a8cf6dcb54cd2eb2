/** The controller-manager benchmark's report: one table row per program and scale, then the details. */
import { mib, print } from '../support/run.js';

export interface Result {
  readonly program: string;
  readonly shoots: number;
  readonly reconciledMs: number;
  readonly nodesAnnotatedMs: number;
  readonly cpuToReconcile: number;
  readonly rssKiB: number;
  /** V8's heap in use at the same moment (the process's own metric), KiB. */
  readonly heapKiB: number;
  /** RSS and heap in use at the end of the idle window. */
  readonly idleRssKiB: number;
  readonly idleHeapKiB: number;
  readonly idle: { perShootHour: number; writes: number; breakdown: string; leaderElectionPerHour: number };
  readonly round: { perShoot: number; writesPerShoot: number; breakdown: string; writeBreakdown: string };
  readonly restart: {
    readyMs: number;
    resyncMs: number;
    writes: number;
    writeBreakdown: string;
    /** The first few writes, `verb uri (status)`, to tell what was written. */
    writeSamples: string[];
    exitCode: number | null;
  };
  readonly watches: { perShoot: number; shared: number };
  readonly idleCpuPerMinute: number;
}

export const s = (x: number) => (x / 1000).toFixed(1);

export function report(results: readonly Result[], bareNodeKiB: number): void {
  print();
  print(
    '| program | shoots | reconciled after (s) | Nodes annotated after (s) | CPU to reconcile (s) | RSS (MiB) | ' +
      'heap in use (MiB) | RSS / heap after idle (MiB) | idle requests per shoot-hour | idle writes | idle CPU (s/min) | requests per shoot reconcile (writes) | ' +
      'restart: ready / resynced (s) | restart writes | watches per shoot (+ shared) |',
  );
  print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    print(
      `| ${r.program} | ${r.shoots} | ${s(r.reconciledMs)} | ${s(r.nodesAnnotatedMs)} | ${r.cpuToReconcile.toFixed(1)} | ` +
        `${mib(r.rssKiB)} | ${mib(r.heapKiB)} | ${mib(r.idleRssKiB)} / ${mib(r.idleHeapKiB)} | ${r.idle.perShootHour.toFixed(1)} | ${r.idle.writes} | ${r.idleCpuPerMinute.toFixed(2)} | ` +
        `${r.round.perShoot.toFixed(1)} (${r.round.writesPerShoot.toFixed(1)}) | ${s(r.restart.readyMs)} / ` +
        `${s(r.restart.resyncMs)} | ${r.restart.writes} | ${r.watches.perShoot.toFixed(1)} (+${r.watches.shared}) |`,
    );
  }
  print();
  const programs = [...new Set(results.map((r) => r.program))];
  for (const program of programs) {
    const rows = results.filter((r) => r.program === program).sort((a, b) => a.shoots - b.shoots);
    const first = rows[0]!;
    const last = rows.at(-1)!;
    if (last.shoots > first.shoots)
      print(
        `${program}: RSS growth per shoot ${mib((last.rssKiB - first.rssKiB) / (last.shoots - first.shoots))} MiB, ` +
          `heap in use ${mib((last.heapKiB - first.heapKiB) / (last.shoots - first.shoots))} MiB; ` +
          `after the idle window ${mib((last.idleRssKiB - first.idleRssKiB) / (last.shoots - first.shoots))} MiB, ` +
          `heap ${mib((last.idleHeapKiB - first.idleHeapKiB) / (last.shoots - first.shoots))} MiB ` +
          `(${first.shoots} → ${last.shoots} shoots); a bare node process holds ${mib(bareNodeKiB)} MiB`,
      );
  }
  print();
  for (const r of results) {
    print(`${r.program}, ${r.shoots} shoots:`);
    print(
      `  idle requests: ${r.idle.breakdown}; leader election ${r.idle.leaderElectionPerHour.toFixed(0)}/h (per process)`,
    );
    print(`  one reconcile of every shoot: ${r.round.breakdown}`);
    print(`    writes: ${r.round.writeBreakdown}`);
    print(`  restart: exit code ${r.restart.exitCode}; writes while resyncing: ${r.restart.writeBreakdown}`);
    for (const w of r.restart.writeSamples) print(`    ${w}`);
  }
}
