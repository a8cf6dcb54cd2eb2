/**
 * How long a watch on a connection that died without a reset (a lost NAT entry) takes to be
 * noticed and re-opened with the default heartbeat, against a real kube-apiserver behind a proxy
 * that freezes connections; and how often the API server sends bookmarks on an idle watch (the
 * heartbeat the detection relies on). Real time throughout: about 6 minutes.
 * `npx tsx hack/bench/dead-watch.ts > docs/benchmarks/dead-watch.out.txt`; `--quick` (one trial frozen
 * after 1 s, a 3 s heartbeat) takes about 20 seconds.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, type V1Secret } from '@kubernetes/client-node';
import { Informer } from '../../runtime/kube/informer.js';
import { LineSplitter } from '../../runtime/kube/json-lines.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { DEFAULT_WATCH_HEARTBEAT_TIMEOUT_MS } from '../../runtime/kube/list-watch.js';
import { startEnvtest, stopAllEnvtests } from '../landscape/envtest.js';
import { FreezingProxy } from '../landscape/freezing-proxy.js';
import { viaProxy } from '../landscape/via-proxy.js';
import { benchCommandLine, QUICK_NOTICE } from './support/command-line.js';

const { values: flags, quick } = benchCommandLine({
  script: 'hack/bench/dead-watch.ts',
  duration:
    'About 6 minutes at the defaults; --quick (one trial frozen after 1 s, a 3 s heartbeat) about 20 seconds.',
  options: {
    trials: { type: 'string', default: '3', quick: '1' },
    heartbeat: { type: 'string', default: `${DEFAULT_WATCH_HEARTBEAT_TIMEOUT_MS / 1000}`, quick: '3' },
  },
});
const TRIALS = Number(flags.trials);
const HEARTBEAT_MS = Number(flags.heartbeat) * 1000;
if (!Number.isInteger(TRIALS) || TRIALS < 1 || !(HEARTBEAT_MS > 0))
  throw new Error('--trials takes a positive integer, --heartbeat a positive number of seconds');
/** When a trial freezes the connection after the watch opened: at a random point of a minute. */
const frozenAfter = () => (quick ? 1_000 : 5_000 + Math.round(Math.random() * 60_000));
const out = (line = '') => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const env = await startEnvtest({ name: 'bench-dead-watch' });
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const namespace = 'default';
  await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'dead-watch' } } });

  // bookmark arrival on an idle watch, for the whole run
  const bookmarks: number[] = [];
  const idle = new AbortController();
  const http = new KubeHttp(env.kubeConfig);
  const watching = http
    .get({
      path: `/api/v1/namespaces/${namespace}/secrets`,
      query: { watch: 'true', allowWatchBookmarks: 'true', resourceVersion: '0', timeoutSeconds: 1800 },
      signal: idle.signal,
      bodyTimeoutMs: 0,
    })
    .then(async (response) => {
      const lines = new LineSplitter();
      for await (const chunk of response.body)
        for (const line of lines.push(chunk as Buffer))
          if (line.includes('"BOOKMARK"')) bookmarks.push(Date.now());
    })
    .catch(() => undefined);

  const trials: { frozenAfterMs: number; reopenedMs: number; changeSeenMs: number }[] = [];
  for (let t = 0; t < TRIALS; t++) {
    const { hostname, port } = new URL(env.server);
    const proxy = await FreezingProxy.start({ host: hostname, port: Number(port) });
    const informer = new Informer<V1Secret>({
      http: new KubeHttp(viaProxy(env.kubeConfig, proxy)),
      path: `/api/v1/namespaces/${namespace}/secrets`,
      fieldSelector: 'metadata.name=dead-watch',
      heartbeatTimeoutMs: HEARTBEAT_MS,
    });
    const stop = new AbortController();
    informer.start(stop.signal);
    await informer.waitForSync();
    const frozenAfterMs = frozenAfter();
    await sleep(frozenAfterMs);
    proxy.freeze(); // open connections go silent; new ones work (a new NAT entry)
    const frozenAt = Date.now();
    const value = `trial-${t}`;
    await core.replaceNamespacedSecret({
      name: 'dead-watch',
      namespace,
      body: { metadata: { name: 'dead-watch' }, data: { v: Buffer.from(value).toString('base64') } },
    });
    let reopenedMs = -1;
    while (Date.now() - frozenAt < 300_000) {
      if (reopenedMs < 0 && informer.stats.watchesOpened > 1) reopenedMs = Date.now() - frozenAt;
      const seen = informer.get('dead-watch', namespace)?.data?.v;
      if (seen && Buffer.from(seen, 'base64').toString() === value) break;
      await sleep(100);
    }
    trials.push({ frozenAfterMs, reopenedMs, changeSeenMs: Date.now() - frozenAt });
    stop.abort();
    await informer.stopped();
    await proxy.close();
  }
  idle.abort();
  await watching;

  const gaps = bookmarks.slice(1).map((b, i) => (b - bookmarks[i]!) / 1000);
  out('# dead-watch benchmark (hack/bench/dead-watch.ts)');
  if (quick) out(QUICK_NOTICE);
  out();
  out(
    `kube-apiserver ${env.version.gitVersion}; heartbeat ${HEARTBEAT_MS / 1000} s (the default: ${DEFAULT_WATCH_HEARTBEAT_TIMEOUT_MS / 1000} s); node ${process.version}, ${new Date().toISOString().slice(0, 10)}`,
  );
  out();
  out(
    `bookmarks on an idle watch: ${bookmarks.length}, seconds between them: ${gaps.map((g) => g.toFixed(1)).join(', ')}`,
  );
  out();
  out(
    '| trial | frozen after the watch opened (s) | re-opened after the freeze (s) | change made at the freeze seen after (s) |',
  );
  out('|---|---|---|---|');
  for (const [i, r] of trials.entries()) {
    const cells = [r.frozenAfterMs, r.reopenedMs, r.changeSeenMs].map((ms) => (ms / 1000).toFixed(1));
    out(`| ${i + 1} | ${cells.join(' | ')} |`);
  }
  await http.close();
  await stopAllEnvtests();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
