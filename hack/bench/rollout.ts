/**
 * The rollout gate against a rollout by delays alone, in the same run, over one worker pool of
 * 100 nodes in 3 zones: the blast radius of a bad change (nodes that applied it) and the time to
 * roll a healthy change out to every node.
 *
 * Measured: real kube-apiservers (hack/envtest), the controller-manager with its node-delay and
 * rollout controllers, and 100 node agents: each one the agent's own OSC and Lease controllers in
 * this process (recorded systemd, failure injection: the bad change leaves kubelet inactive),
 * with a short window (max delay 60 s, settle 10 s, agent settle 1 s) so a run takes minutes.
 * Then the same decisions at the defaults (max delay 5 min, settle 60 s, agent settle 10 s) in
 * simulated time, with `decidePool` itself.
 * `npx tsx hack/bench/rollout.ts > docs/benchmarks/rollout.out.txt` (about 10 minutes; `--model-only`:
 * the simulated part alone, in seconds; `--quick`: 6 nodes, max delay 10 s, settle 2 s, about
 * 2 minutes).
 */
import { setMaxListeners } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Node } from '@kubernetes/client-node';
import {
  type ApplyReport,
  key,
  type OperatingSystemConfig,
  readApplyReport,
  sha256Hex,
  stringifyYaml,
} from '../../api/index.js';
import { addNodeDelayController } from '../../controllers/node-delay/add.js';
import { addRolloutController } from '../../controllers/rollout/add.js';
import { decidePool } from '../../controllers/rollout/decide.js';
import type { NodeView } from '../../controllers/rollout/observe.js';
import type { PoolRollout } from '../../controllers/rollout/state.js';
import { addLeaseController } from '../../node-agent/controllers/lease/add.js';
import { addOscController } from '../../node-agent/controllers/operatingsystemconfig/add.js';
import { DirectoryImageExtractor } from '../../node-agent/registry/directory-extractor.js';
import { EventRecorder } from '../../runtime/events.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { silentLogger } from '../../runtime/logging.js';
import { RolloutSettingsSchema } from '../../seed/manager/config.js';
import { runManager } from '../../seed/manager/run-manager.js';
import { createShootFixture } from '../landscape/controller-manager-fixture.js';
import { startEnvtest, stopAllEnvtests } from '../landscape/envtest.js';
import { BAD_MAX_PODS, kubeletOsc } from '../landscape/kubelet-osc.js';
import { oscSecretObject } from '../landscape/osc-secret.js';
import { RecordingSystemd } from '../node-agent-doubles/recording-systemd.js';
import { readSystemdFaults } from '../node-agent-doubles/systemd-faults.js';
import { benchCommandLine, QUICK_NOTICE } from './support/command-line.js';

const { values: args, quick } = benchCommandLine({
  script: 'hack/bench/rollout.ts',
  duration:
    'About 10 minutes at the defaults; --model-only (the simulated part) seconds; --quick (6 nodes, max delay 10 s, settle 2 s) about 2 minutes.',
  options: {
    nodes: { type: 'string', default: '100', quick: '6' },
    'max-delay': { type: 'string', default: '60', quick: '10' },
    settle: { type: 'string', default: '10s', quick: '2s' },
    'model-only': { type: 'boolean', default: false },
  },
});
const NODES = Number(args.nodes);
const WINDOW_S = Number(args['max-delay']);
if (!Number.isInteger(NODES) || NODES < 3 || !Number.isInteger(WINDOW_S) || WINDOW_S < 1)
  throw new Error('--nodes takes an integer >= 3 (one per zone), --max-delay a positive number of seconds');
const SETTLE = args.settle;
/** How long a run watches after a bad change halted (gated) or its window ended (delay only). */
const AFTER_BAD_MS = quick ? 3_000 : 30_000;
const AGENT_SETTLE_MS = 1000;
const VERSION = '1.30.2';
const out = (line = '') => process.stdout.write(`${line}\n`);
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const secs = (ms: number) => (ms / 1000).toFixed(1);

interface Outcome {
  /** Nodes that applied the change (their report names its checksum). */
  readonly applied: number;
  readonly failed: number;
  /** From the secret change until every node reported success (healthy changes). */
  readonly allDoneMs?: number;
  /** From the secret change until the pool halted (gated bad changes). */
  readonly haltedMs?: number;
}

async function measured(): Promise<Map<string, Outcome>> {
  const [seed, shoot] = await Promise.all([
    startEnvtest({ name: 'bench-rollout-seed' }),
    startEnvtest({ name: 'bench-rollout-shoot' }),
  ]);
  out(`kube-apiserver ${seed.version.gitVersion} + etcd (hack/envtest), seed and shoot`);
  const fixture = await createShootFixture(seed, shoot, 'direct');
  const pool = `bench-${fixture.namespace.split('--').at(-1)}`;
  await fixture.patchShoot((s) => {
    s.metadata.annotations = {
      ...s.metadata.annotations,
      'shoot.gardener.cloud/cloud-config-execution-max-delay-seconds': String(WINDOW_S),
    };
    s.spec.provider.workers = [{ ...s.spec.provider.workers[0], name: pool }];
  });
  const core = shoot.kubeConfig.makeApiClient(CoreV1Api);
  const dir = mkdtempSync(join(tmpdir(), 'bench-rollout-'));
  const faults = join(dir, 'faults.json');
  writeFileSync(
    faults,
    JSON.stringify([
      {
        unit: 'kubelet.service',
        effect: 'inactive',
        whenFileContains: { path: '/var/lib/kubelet/config/kubelet', text: `maxPods: ${BAD_MAX_PODS}` },
      },
    ]),
  );
  const secretName = key(pool, VERSION);
  let secretCreated = false;
  const setOsc = async (osc: OperatingSystemConfig) => {
    const yaml = stringifyYaml(osc);
    const body = oscSecretObject({ name: secretName, oscYaml: yaml, pool });
    if (secretCreated)
      await core.replaceNamespacedSecret({ name: secretName, namespace: 'kube-system', body });
    else await core.createNamespacedSecret({ namespace: 'kube-system', body });
    secretCreated = true;
    return sha256Hex(yaml);
  };
  await setOsc(kubeletOsc(100));

  const names = Array.from({ length: NODES }, (_, i) => `bench-${String(i).padStart(3, '0')}-${pool}`);
  for (const [i, name] of names.entries()) {
    await core.createNode({
      body: {
        metadata: {
          name,
          labels: {
            'kubernetes.io/hostname': name,
            'worker.gardener.cloud/pool': pool,
            'topology.kubernetes.io/zone': `zone-${'abc'[i % 3]}`,
          },
        },
      },
    });
    await core.patchNodeStatus(
      {
        name,
        body: {
          status: {
            conditions: [{ type: 'Ready', status: 'True', reason: 'Bench', lastTransitionTime: new Date() }],
          },
        },
      },
      merge,
    );
  }

  // the 100 agents: the agent's own OSC and Lease controllers, one shared connection pool
  const stop = new AbortController();
  // 200 controllers and their informers listen on it
  setMaxListeners(2000, stop.signal);
  const http = new KubeHttp(shoot.kubeConfig);
  const client = new KubeClient(http);
  const images = join(dir, 'images');
  mkdirSync(images);
  for (const name of names) {
    const root = join(dir, name);
    mkdirSync(root);
    const osc = addOscController(
      {
        http,
        client,
        secretName,
        nodeName: name,
        hostName: name,
        kubernetesVersion: VERSION,
        syncPeriodMs: 600_000,
        root,
        systemd: new RecordingSystemd(join(root, 'systemd.jsonl'), {
          faults: () => readSystemdFaults(faults),
          root,
        }),
        images: new DirectoryImageExtractor(images),
        recorder: new EventRecorder({ http, component: 'gardener-node-agent' }),
        restartSelf: () => undefined,
        applySettleMs: AGENT_SETTLE_MS,
      },
      stop.signal,
    );
    addLeaseController({ client, node: () => osc.nodes.list()[0] }, stop.signal);
  }

  const config = fixture.config({
    leaderElection: { enabled: false },
    controllers: { rollout: { settleTime: SETTLE, checkInterval: '1s' } },
  });
  const manager = await runManager({
    config,
    seed: fixture.seedIdentity,
    log: silentLogger,
    controllers: {
      seed: [],
      shoot: [
        (ctx, env) => addNodeDelayController(ctx, env, {}),
        (ctx, env) => addRolloutController(ctx, env),
      ],
    },
  });

  const reports = async (): Promise<(ApplyReport | undefined)[]> => {
    const list = await core.listNode({ labelSelector: `worker.gardener.cloud/pool=${pool}` });
    return list.items.map((n: V1Node) => readApplyReport(n.metadata?.annotations as Record<string, string>));
  };
  const phase = async (): Promise<string | undefined> => {
    const cm = await seed.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ name: 'gardener-node-agent-rollout', namespace: fixture.namespace })
      .catch(() => undefined);
    return /phase: (\w+)/.exec(cm?.data?.[`${pool}.yaml`] ?? '')?.[1];
  };
  const gate = (on: boolean) =>
    fixture.seedObjects.patch(
      {
        apiVersion: 'extensions.gardener.cloud/v1alpha1',
        kind: 'Cluster',
        metadata: {
          name: fixture.namespace,
          annotations: { 'rollout.node-configuration.gardener.cloud/gate': on ? 'on' : 'off' },
        },
      } as never,
      undefined,
      undefined,
      'bench',
      undefined,
      PatchStrategy.MergePatch,
    );
  const untilAll = async (checksum: string, timeoutMs: number) => {
    const started = Date.now();
    while (Date.now() - started < timeoutMs) {
      const r = await reports();
      if (r.every((x) => x?.checksum === checksum && x.result === 'Succeeded')) return Date.now() - started;
      await sleep(250);
    }
    throw new Error(`not every node reported ${checksum.slice(0, 12)} within ${timeoutMs} ms`);
  };
  const count = async (checksum: string) => {
    const r = (await reports()).filter((x) => x?.checksum === checksum);
    return { applied: r.length, failed: r.filter((x) => x?.result === 'Failed').length };
  };

  const results = new Map<string, Outcome>();
  let maxPods = 100;
  await untilAll(sha256Hex(stringifyYaml(kubeletOsc(100))), 300_000);
  for (const gated of [false, true]) {
    const mode = gated ? 'gated' : 'delay only';
    await gate(gated);
    await sleep(3000);
    // a healthy change
    let started = Date.now();
    const healthy = await setOsc(kubeletOsc(++maxPods));
    const allDoneMs = await untilAll(healthy, 900_000);
    results.set(`${mode}: healthy`, { ...(await count(healthy)), allDoneMs });
    out(`${mode}: healthy change on every node after ${secs(allDoneMs)} s`);
    // a bad change: wait until it halted (gated) or the window is over (delay only), then some
    started = Date.now();
    const bad = await setOsc(kubeletOsc(BAD_MAX_PODS));
    let haltedMs: number | undefined;
    if (gated) {
      while ((await phase()) !== 'Halted' && Date.now() - started < 300_000) await sleep(250);
      haltedMs = Date.now() - started;
      await sleep(AFTER_BAD_MS);
    } else {
      await sleep(WINDOW_S * 1000 + AFTER_BAD_MS);
    }
    results.set(`${mode}: bad`, { ...(await count(bad)), ...(haltedMs === undefined ? {} : { haltedMs }) });
    out(`${mode}: bad change applied on ${(await count(bad)).applied} of ${NODES} nodes`);
    // the fix
    started = Date.now();
    const fix = await setOsc(kubeletOsc(++maxPods));
    const fixedMs = await untilAll(fix, 900_000);
    results.set(`${mode}: fix`, { ...(await count(fix)), allDoneMs: fixedMs });
    out(`${mode}: the fix on every node after ${secs(fixedMs)} s`);
  }
  stop.abort();
  manager.stop();
  await manager.stopped;
  await http.close();
  rmSync(dir, { recursive: true, force: true });
  await fixture.cleanUp().catch(() => undefined);
  return results;
}

/** The same decisions in simulated time at the defaults: every node takes `applyMs` and the agent's settle time. */
function modelled(o: {
  bad: boolean;
  gated: boolean;
  windowMs: number;
  settle: string;
  agentSettleMs: number;
}) {
  const settings = RolloutSettingsSchema.parse({ settleTime: o.settle, checkInterval: '1s' });
  const T0 = '0'.repeat(64);
  const T1 = '1'.repeat(64);
  const applyMs = 2000;
  type SimNode = { -readonly [K in keyof NodeView]: NodeView[K] } & {
    grantedAt?: number;
    appliedAt?: number;
  };
  const nodes: SimNode[] = Array.from({ length: NODES }, (_, i) => ({
    name: `n${String(i).padStart(3, '0')}`,
    zone: `zone-${'abc'[i % 3]}`,
    delay: Math.floor((i * o.windowMs * 1e6) / NODES),
    applied: T0,
    permitted: T0,
    ready: true,
    leaseFresh: true,
  }));
  let state: PoolRollout | undefined;
  for (let now = 0; now < 6 * 3600_000; now += 1000) {
    if (o.gated) {
      const d = decidePool({
        settings,
        now,
        windowMs: o.windowMs,
        observation: { pool: 'p', target: T1, nodes },
        previous: state,
      });
      state = d.state;
      for (const n of nodes) {
        const p = d.permissions.get(n.name);
        if (p !== undefined) n.permitted = p;
        if (n.permitted === T1 && n.grantedAt === undefined && n.applied !== T1) n.grantedAt = now;
      }
    } else {
      for (const n of nodes) n.grantedAt ??= n.delay! / 1e6;
    }
    for (const n of nodes) {
      if (n.grantedAt === undefined || n.applied === T1 || now < n.grantedAt + applyMs) continue;
      n.applied = T1;
      n.appliedAt = now;
      n.report = { checksum: T1, result: 'Verifying', reason: 'Applied', message: '' };
    }
    for (const n of nodes) {
      if (n.report?.result !== 'Verifying' || now < n.appliedAt! + o.agentSettleMs) continue;
      n.report = o.bad
        ? { checksum: T1, result: 'Failed', reason: 'UnitNotActive', message: 'kubelet.service is inactive' }
        : { checksum: T1, result: 'Succeeded', reason: 'Applied', message: '' };
    }
    const done = nodes.every((n) => n.report?.result === 'Succeeded');
    if (!o.bad && done) return { applied: NODES, allDoneMs: now };
    if (
      o.bad &&
      (state?.phase === 'Halted' ? now > state.haltedSince! + 600_000 : !o.gated && now > o.windowMs + 60_000)
    )
      return { applied: nodes.filter((n) => n.applied === T1).length, haltedMs: state?.haltedSince };
  }
  throw new Error('the model did not finish');
}

out('# rollout benchmark (hack/bench/rollout.ts)');
if (quick) out(QUICK_NOTICE);
out();
out(
  `one worker pool of ${NODES} nodes in 3 zones; node ${process.version}, ${new Date().toISOString().slice(0, 10)}`,
);
out('a bad change: kubelet inactive after its restart on every node that applies it (injected fault)');
out();
if (!args['model-only']) {
  out(
    `## measured: max delay ${WINDOW_S} s, settle ${SETTLE}, agent settle ${AGENT_SETTLE_MS / 1000} s, canary 1, growth 2, at most 25 % per wave`,
  );
  out();
  try {
    const r = await measured();
    out();
    out('| | delay only (gate off) | gated |');
    out('|---|---|---|');
    const g = (k: string) => r.get(k)!;
    out(
      `| bad change: nodes that applied it | ${g('delay only: bad').applied} of ${NODES} | ${g('gated: bad').applied} of ${NODES} (halted after ${secs(g('gated: bad').haltedMs!)} s) |`,
    );
    out(
      `| healthy change: every node updated after | ${secs(g('delay only: healthy').allDoneMs!)} s | ${secs(g('gated: healthy').allDoneMs!)} s (${(g('gated: healthy').allDoneMs! / g('delay only: healthy').allDoneMs!).toFixed(2)}×) |`,
    );
    out(
      `| the fix after a bad change: every node updated after | ${secs(g('delay only: fix').allDoneMs!)} s | ${secs(g('gated: fix').allDoneMs!)} s |`,
    );
  } finally {
    await stopAllEnvtests();
  }
}
out();
out(
  '## modelled at the defaults: max delay 5 min, settle 60 s, agent settle 10 s, 2 s per apply (decidePool in simulated time)',
);
out();
const defaults = { windowMs: 300_000, settle: '60s', agentSettleMs: 10_000 };
const mb = modelled({ ...defaults, bad: true, gated: true });
const mbd = modelled({ ...defaults, bad: true, gated: false });
const mh = modelled({ ...defaults, bad: false, gated: true });
const mhd = modelled({ ...defaults, bad: false, gated: false });
out('| | delay only | gated |');
out('|---|---|---|');
out(
  `| bad change: nodes that applied it | ${mbd.applied} of ${NODES} | ${mb.applied} of ${NODES} (halted after ${secs(mb.haltedMs!)} s) |`,
);
out(
  `| healthy change: every node updated after | ${secs(mhd.allDoneMs!)} s | ${secs(mh.allDoneMs!)} s (${(mh.allDoneMs! / mhd.allDoneMs!).toFixed(2)}×) |`,
);
