/**
 * `npm run demo [-- --nodes N]`: a local landscape end to end. Starts a seed and a shoot
 * kube-apiserver, `gardener-osc controller-manager` (direct apply mode, os-local) and one real
 * gardener-node-agent per node, then walks one shoot from the legacy cloud-config-downloader to
 * the agent (every node's initial apply), through a kubelet configuration change let out in waves
 * behind the health gate (`--break-rollout`: a bad one, halted at the canaries, then its fix), then
 * shows what each node's own identity may do to the rest of the shoot, printing a timeline. Ends
 * with a summary table and
 * an SVG chart of the rollout; exits 0 when every check holds. Ctrl-C (SIGINT) or SIGTERM stops
 * it, and every process, API server and temp dir is removed, whichever way it ends.
 *
 * `--real-nodes` (root, the real-node image of hack/real-node/build.sh): the same scenario on 2-3
 * real nodes, nspawn containers with systemd as PID 1 (hack/demo/real-demo-node.ts); their
 * containers and node directories go too, and nodes a vanished run left are reaped first.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { killAllNow } from './processes.js';
import {
  DEFAULT_NODES,
  DEFAULT_REAL_NODES,
  demoNodeCount,
  MAX_NODES,
  MAX_REAL_NODES,
  UsageError,
} from './real-nodes-mode.js';
import { checks, formatEntry, rolloutSvg, summaryTable } from './report.js';
import { DEFAULT_MAX_DELAY_SECONDS, runScenario } from './scenario.js';
import { Interrupted } from './wait.js';

const FORCE_AFTER_MS = 3000;

function integer(min: number, max: number) {
  return (text: string) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return n;
  };
}

interface Options {
  readonly nodes?: number;
  readonly realNodes?: boolean;
  readonly maxDelay: number;
  readonly out: string;
  readonly keepWorkdir?: boolean;
  readonly breakRollout?: boolean;
}

const print = (line: string) => process.stdout.write(`${line}\n`);

async function demo(options: Options & { readonly nodes: number }): Promise<number> {
  const controller = new AbortController();
  let signalName: NodeJS.Signals | undefined;
  let firstSignalAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalName) {
      // one Ctrl-C often arrives more than once (from the terminal, and relayed by npm):
      // only a signal well after the first one means "stop waiting"
      if (Date.now() - firstSignalAt < FORCE_AFTER_MS) return;
      print(`${signal} again: killing every process now`);
      killAllNow();
      // the scenario's exit hook removes the temp dirs
      process.exit(signal === 'SIGTERM' ? 143 : 130);
    }
    signalName = signal;
    firstSignalAt = Date.now();
    print(
      `\n${signal}: stopping the demo, removing every process, API server and temp dir (again after 3 s: at once) ...`,
    );
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  print(
    'gardener-osc demo: one shoot on a local landscape. Order: legacy downloader -> migration to the agent (every\n' +
      "node's initial apply, each agent obtaining its own identity) -> kubelet change -> a compromised node: a shoot\n" +
      'migrates once and its first agent apply is the migration, so it comes first; the rollout and the probes then\n' +
      'run on the migrated fleet.',
  );
  try {
    const result = await runScenario({
      nodes: options.nodes,
      maxDelaySeconds: options.maxDelay,
      signal: controller.signal,
      keepWorkDir: options.keepWorkdir,
      breakRollout: options.breakRollout,
      realNodes: options.realNodes,
      onTimeline: (entry) => print(formatEntry(entry)),
    });
    const table = summaryTable(result);
    const results = checks(result);
    const checkLines = results.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.text}`);
    print('');
    print(table);
    print('');
    for (const line of checkLines) print(line);
    mkdirSync(options.out, { recursive: true });
    const svg = join(options.out, 'demo-rollout.svg');
    const summary = join(options.out, 'demo-summary.txt');
    writeFileSync(svg, rolloutSvg(result));
    writeFileSync(
      summary,
      `${result.timeline.map(formatEntry).join('\n')}\n\n${table}\n\n${checkLines.join('\n')}\n`,
    );
    print('');
    print(`rollout chart: ${svg}`);
    print(`timeline and summary: ${summary}`);
    if (options.keepWorkdir) print(`work dir kept: ${result.workDir}`);
    const failed = results.filter((c) => !c.ok).length;
    print(
      failed === 0
        ? `all ${results.length} checks hold; every process, API server and temp dir is gone`
        : `${failed} of ${results.length} checks failed`,
    );
    return failed === 0 ? 0 : 1;
  } catch (e) {
    if (e instanceof UsageError) {
      print(`demo: ${e.message}`);
      return 2;
    }
    if (e instanceof Interrupted || controller.signal.aborted) {
      print('stopped: every process, API server and temp dir is gone');
      return signalName === 'SIGTERM' ? 143 : 130;
    }
    print(`\ndemo failed: ${(e as Error).stack ?? String(e)}`);
    print('every process, API server and temp dir is gone');
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

const program = new Command('npm run demo --')
  .description(
    'Gardener node configuration end to end on a local landscape: a seed and a shoot kube-apiserver, the ' +
      'controller-manager (direct apply mode, os-local) and one gardener-node-agent process per node. One shoot ' +
      "goes from the legacy cloud-config-downloader to the agent (every node's initial apply), through a kubelet " +
      "change let out in waves behind the health gate; then each node's own identity is tried against the rest of " +
      'the shoot (per-node identities, the node agent authorizer). Prints a timeline and a ' +
      'summary table, writes the rollout as an SVG chart, exits 0 when every check holds (1: one failed, 2: bad ' +
      'usage, 130/143: interrupted). Ctrl-C removes every process, API server and temp dir. Needs Go on the ' +
      'first run (it builds kube-apiserver and etcd, cached afterwards).',
  )
  .exitOverride()
  .option(
    '--nodes <n>',
    `worker nodes, spread over the example's pools and zones (1-${MAX_NODES}, default ${DEFAULT_NODES}; with --real-nodes 1-${MAX_REAL_NODES}, default ${DEFAULT_REAL_NODES})`,
    integer(1, MAX_NODES),
  )
  .option(
    '--max-delay <seconds>',
    "the shoot's max reconciliation delay (the rollout window)",
    integer(1, 300),
    DEFAULT_MAX_DELAY_SECONDS,
  )
  .option(
    '--out <dir>',
    'where demo-rollout.svg and demo-summary.txt go',
    join(tmpdir(), 'gardener-osc-demo-output'),
  )
  .option('--keep-workdir', "keep the nodes' roots, recordings and logs (printed at the end)")
  .option(
    '--break-rollout',
    "make the kubelet change a bad one (kubelet does not stay up on a node that applies it): the rollout gate stops it at each pool's canary, then the previous spec fixes the failed nodes first",
  )
  .option(
    '--real-nodes',
    "each node a real node: an nspawn container with systemd as PID 1, booted from the real-node image (root; hack/real-node/build.sh once), its agent under the node's systemd; the kubelet is the image's stand-in",
  )
  .action(async (options: Options) => {
    let nodes: number;
    try {
      nodes = demoNodeCount(options);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      process.stderr.write(`error: ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.exitCode = await demo({ ...options, nodes, out: resolve(options.out) });
  });

try {
  await program.parseAsync(process.argv);
} catch (e) {
  // --help ends here with 0; a bad flag with 2, as with every command of the project
  process.exitCode = e instanceof CommanderError && e.exitCode === 0 ? 0 : 2;
}
// client connections may keep the event loop alive: the demo is done
process.exit(process.exitCode ?? 0);
