/**
 * The rollout gate end to end on real API servers: the controller-manager (rollout controller
 * alone, as its own ServiceAccount) in the seed, real `gardener-node-agent` processes for the
 * shoot's Nodes. Healthy waves; a failing canary halts its pool while the other pool goes on; a
 * new configuration supersedes and reaches the failed node first; NotReady halts and resume goes
 * on; a restart mid-wave loses nothing and skips no gate; a node joining mid-rollout takes the
 * newest; unguarded; `gate: off` is today's behaviour.
 */
import { expect } from 'chai';
import { PERMITTED_CHECKSUM_ANNOTATION, ROLLOUT_CLUSTER_ANNOTATION } from '../../api/index.js';
import { rolloutStatus } from '../../cli/rollout-command.js';
import { SELECTOR_LABEL } from '../../hack/landscape/controller-manager-fixture.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { BAD_MAX_PODS, kubeletOsc } from '../../hack/landscape/kubelet-osc.js';
import { RolloutLandscape } from './rollout-fixture.js';

const SETTLE_MS = 2000;
const ROLLOUT = { settleTime: '2s', checkInterval: '500ms', maxPerWave: '100%' };

describe('rollout gate against real API servers and agents', function () {
  this.timeout(300_000);
  let seed: Envtest;
  let shoot: Envtest;
  let l: RolloutLandscape;
  let cpu: string;
  let gpu: string;

  before(async function () {
    this.timeout(20 * 60_000);
    [seed, shoot] = await Promise.all([startEnvtest({ name: 'seed' }), startEnvtest({ name: 'shoot' })]);
    requireClusterScopedWrites(shoot);
    l = await RolloutLandscape.create(seed, shoot, 2);
    [cpu, gpu] = l.pools;
    for (const [name, zone] of [
      ['c1', 'a'],
      ['c2', 'b'],
      ['c3', 'c'],
      ['c4', 'a'],
    ] as const)
      await l.addNode(name, cpu, zone);
    for (const [name, zone] of [
      ['g1', 'a'],
      ['g2', 'b'],
    ] as const)
      await l.addNode(name, gpu, zone);
    await l.startManager(ROLLOUT);
  });

  after(async () => {
    if (process.env.TEST_LOG) for (const n of l?.nodes.values() ?? []) console.log(`--- ${n.name}\n${n.log}`);
    await l?.cleanUp();
  });

  /** When each node first reports `checksum`, polling until all do (or `until` says stop). */
  async function appliedTimes(names: readonly string[], checksum: string, timeoutMs = 90_000) {
    const at = new Map<string, number>();
    const deadline = Date.now() + timeoutMs;
    while (at.size < names.length && Date.now() < deadline) {
      for (const name of names)
        if (!at.has(name) && (await l.applied(name)) === checksum) at.set(name, Date.now());
      await sleep(150);
    }
    return at;
  }

  it('rolls a healthy change out in waves: the canary, then growing waves, each after the gate passed', async () => {
    const v100 = (await l.status()).get(cpu)?.target;
    await l.poolWhen(
      cpu,
      'the first configuration everywhere',
      (p) => p.phase === 'Completed' && p.updated === 4,
    );
    await l.poolWhen(
      gpu,
      'the first configuration everywhere',
      (p) => p.phase === 'Completed' && p.updated === 2,
    );
    void v100;
    const v110 = await l.setOsc(cpu, kubeletOsc(110));
    await l.setOsc(gpu, kubeletOsc(110));
    const names = l.inPool(cpu).map((n) => n.name);
    const at = await appliedTimes(names, v110);
    expect(at.size, 'every node applied').to.equal(4);
    const order = [...at].sort((a, b) => a[1] - b[1]);
    // the canary applied alone; the next node only after the canary passed the gate (settle time)
    expect(order[1]![1] - order[0]![1]).to.be.at.least(SETTLE_MS);
    const done = await l.poolWhen(
      cpu,
      'the rollout completed',
      (p) => p.phase === 'Completed' && p.target === v110,
    );
    expect(done).to.include({ wave: 3, updated: 4, failed: 0, pending: 0 });
    const waves = (await l.events('RolloutWaveStarted')).filter(
      (e) => e.includes(`pool ${cpu}: `) && e.includes(v110.slice(0, 12)),
    );
    expect(waves.map((e) => /: (\d+) node\(s\)/.exec(e)?.[1])).to.deep.equal(['1', '2', '1']);
    expect(waves[0]).to.match(/\(canary\)/);
    await l.poolWhen(gpu, 'the other pool completed', (p) => p.phase === 'Completed' && p.updated === 2);
    for (const n of l.nodes.values())
      expect((await l.readNode(n.name)).metadata?.annotations?.[PERMITTED_CHECKSUM_ANNOTATION]).to.be.a(
        'string',
      );
  });

  it('halts a pool whose canary fails, with a Warning event naming node, checksum and why; the other pool goes on', async () => {
    const before = (await l.status()).get(cpu)!.target;
    const bad = await l.setOsc(cpu, kubeletOsc(BAD_MAX_PODS));
    const good = await l.setOsc(gpu, kubeletOsc(120));
    const halted = await l.poolWhen(cpu, 'the halt', (p) => p.target === bad && p.phase === 'Halted');
    expect(halted).to.include({ wave: 1, failed: 1 });
    expect(halted.reason).to.match(
      /^node c\d-\w+, checksum [0-9a-f]{12}: UnitNotActive: kubelet\.service is inactive \(dead\)/,
    );
    await l.poolWhen(
      gpu,
      'the other pool done',
      (p) => p.target === good && p.phase === 'Completed' && p.updated === 2,
    );
    await sleep(3 * SETTLE_MS);
    const names = l.inPool(cpu).map((n) => n.name);
    const applied = await Promise.all(names.map((n) => l.applied(n)));
    expect(
      applied.filter((c) => c === bad),
      'the bad configuration stopped at the canary',
    ).to.have.length(1);
    expect(applied.filter((c) => c === before)).to.have.length(3);
    const warning = (await l.events('RolloutHalted')).at(-1)!;
    expect(warning).to.match(
      new RegExp(`^Warning: pool ${cpu}: halted the rollout of ${bad.slice(0, 12)} in wave 1: node c\\d`),
    );
    expect((await l.status()).get(cpu)).to.include({ phase: 'Halted' });
    const metrics = await l.metrics();
    const labels = (pool: string) => `{namespace="${l.fixture.namespace}",pool="${pool}"}`;
    expect(metrics).to.contain(`gardener_osc_rollout_halted${labels(cpu)} 1`);
    expect(metrics).to.contain(`gardener_osc_rollout_halted${labels(gpu)} 0`);
    expect(metrics).to.match(
      new RegExp(
        `gardener_osc_rollout_node_failures_total\\{namespace="${l.fixture.namespace}",pool="${cpu}",reason="UnitNotActive"\\} 1`,
      ),
    );
    // what an operator sees: gardener-osc rollout status from the seed
    const table = await rolloutStatus(
      { shoot: l.fixture.namespace, kubeconfig: seed.kubeconfigFile, format: 'table' },
      {},
      Date.now(),
    );
    expect(table).to.match(new RegExp(`\\n${cpu} +${bad.slice(0, 12)} +Halted +1 +0 +1 +3 +\\d{4}-`));
    expect(table).to.match(new RegExp(`\\n${gpu} +${good.slice(0, 12)} +Completed `));
  });

  it('a new configuration supersedes the halted rollout and reaches the failed node first', async () => {
    const failed = (await l.status()).get(cpu)!.failures[0]!.node;
    const fix = await l.setOsc(cpu, kubeletOsc(130));
    const at = await appliedTimes(
      l.inPool(cpu).map((n) => n.name),
      fix,
    );
    const order = [...at].sort((a, b) => a[1] - b[1]).map(([n]) => n);
    expect(order[0], 'the failed node first').to.equal(failed);
    const done = await l.poolWhen(
      cpu,
      'the fix everywhere',
      (p) => p.target === fix && p.phase === 'Completed',
    );
    expect(done).to.include({ updated: 4, failed: 0 });
    expect(done.supersedes).to.be.a('string');
    expect((await l.events('RolloutSuperseded')).at(-1)).to.match(/failed node\(s\) first: c\d/);
  });

  it('a Node going NotReady within the settle time halts; resume goes on as it is', async () => {
    const v140 = await l.setOsc(cpu, kubeletOsc(140));
    const canary = await l.poolWhen(
      cpu,
      'the canary succeeded',
      (p) => p.target === v140 && p.members[0]?.succeededAt !== undefined,
    );
    const name = canary.members[0]!.node;
    await l.setReady(name, false);
    const halted = await l.poolWhen(cpu, 'the halt', (p) => p.target === v140 && p.phase === 'Halted');
    expect(halted.reason).to.contain(`node ${name}, checksum ${v140.slice(0, 12)}: NodeNotReady`);
    await l.setReady(name, true);
    await l.annotateCluster({ 'rollout.node-configuration.gardener.cloud/action': 'resume' });
    const done = await l.poolWhen(
      cpu,
      'resumed to the end',
      (p) => p.target === v140 && p.phase === 'Completed',
    );
    expect(done).to.include({ updated: 3, failed: 1 });
    expect(done.failures[0]).to.include({ node: name, accepted: true });
    expect((await l.events('RolloutResumed')).at(-1)).to.contain('1 failure(s) accepted');
    const cluster = await l.fixture.cluster();
    expect(
      cluster.metadata?.annotations?.['rollout.node-configuration.gardener.cloud/action'],
      'acted on, removed',
    ).to.equal(undefined);
  });

  it('a controller-manager restart mid-wave loses nothing and does not skip the gate', async () => {
    await l.stopManager();
    await l.startManager({ ...ROLLOUT, settleTime: '6s' });
    const v150 = await l.setOsc(cpu, kubeletOsc(150));
    // a wave of two nodes, both reported success and healthy: then the controller-manager goes away
    const wave = await l.poolWhen(
      cpu,
      'a wave of two that succeeded',
      (p) =>
        p.target === v150 && p.members.length === 2 && p.members.every((m) => m.healthySince !== undefined),
    );
    await l.stopManager();
    await sleep(1000);
    await l.startManager({ ...ROLLOUT, settleTime: '6s' });
    // the wave passes (the next wave starts, or the rollout completes) a full settle time after
    // its nodes were healthy, the time before the restart included, never sooner
    const next = await l.poolWhen(
      cpu,
      'the wave passed',
      (p) => p.target === v150 && (p.wave > wave.wave || p.phase === 'Completed'),
    );
    const passedAt = next.wave > wave.wave ? next.waveStartedAt! : next.completedAt!;
    const healthy = Math.max(...wave.members.map((m) => m.healthySince!));
    expect(next.startedAt, 'the same rollout').to.equal(wave.startedAt);
    expect(passedAt - healthy, 'the wave settled the full 6 s across the restart').to.be.at.least(6000);
    const done = await l.poolWhen(cpu, 'done', (p) => p.target === v150 && p.phase === 'Completed');
    expect(done).to.include({ updated: 4, failed: 0 });
  });

  it('an outage longer than the lease duration, with every Lease stale, does not halt the rollout after the restart', async () => {
    await l.stopManager();
    await l.startManager({ ...ROLLOUT, settleTime: '6s' });
    await l.poolWhen(cpu, 'the pool settled', (p) => p.phase === 'Completed' && p.pending === 0);
    const v152 = await l.setOsc(cpu, kubeletOsc(152));
    const wave = await l.poolWhen(
      cpu,
      'a wave whose nodes succeeded and are healthy',
      (p) =>
        p.target === v152 && p.members.length > 0 && p.members.every((m) => m.healthySince !== undefined),
    );
    // the controller-manager goes away, and with it the authorizer the agents renew their Leases
    // through: no agent renews (stopped) for longer than the lease duration (40 s)
    await l.stopManager();
    const agents = [...l.nodes.values()].map((n) => n.process!);
    for (const a of agents) a.kill('SIGSTOP');
    try {
      await sleep(45_000);
      await l.startManager({ ...ROLLOUT, settleTime: '6s' });
      // the restarted gate looks at the stale Leases before the agents renew again
      await sleep(5000);
    } finally {
      for (const a of agents) a.kill('SIGCONT');
    }
    const done = await l.poolWhen(cpu, 'done', (p) => p.target === v152 && p.phase !== 'Progressing', 90_000);
    expect(done).to.include({ phase: 'Completed', startedAt: wave.startedAt, failed: 0 });
    await l.stopManager();
    await l.startManager(ROLLOUT);
  });

  it('a controller-manager started while a wave settles judges it once the Leases are cached, not a check later', async () => {
    // no look without an event for 10 min: only the Leases filling its cache can wake the gate
    const quiet = { ...ROLLOUT, checkInterval: '10m' };
    await l.stopManager();
    await l.startManager(quiet);
    const v155 = await l.setOsc(cpu, kubeletOsc(155));
    const wave = await l.poolWhen(
      cpu,
      'a wave whose nodes are healthy',
      (p) =>
        p.target === v155 && p.members.length > 0 && p.members.every((m) => m.healthySince !== undefined),
    );
    await l.stopManager();
    await sleep(SETTLE_MS + 500);
    const startedAt = Date.now();
    await l.startManager(quiet);
    const next = await l.poolWhen(
      cpu,
      'the wave passed',
      (p) => p.target === v155 && (p.wave > wave.wave || p.phase === 'Completed'),
    );
    const passedAt = next.wave > wave.wave ? next.waveStartedAt! : next.completedAt!;
    // the resync after a minute would pass it too: within seconds only the Lease cache did
    expect(passedAt - startedAt, 'from the start to the wave passing').to.be.below(10_000);
    await l.stopManager();
    await l.startManager(ROLLOUT);
    await l.poolWhen(cpu, 'done', (p) => p.target === v155 && p.phase === 'Completed');
  });

  it('a node joining mid-rollout takes the newest configuration at once', async () => {
    // The canary settles long enough for the new node to apply within it, however slow the
    // machine: the node must not wait for a wave of its own.
    const SETTLE_TIME = ROLLOUT_CLUSTER_ANNOTATION.settleTime;
    await l.patchCluster({ annotations: { [SETTLE_TIME]: '60s' } });
    try {
      const v160 = await l.setOsc(cpu, kubeletOsc(160));
      await l.poolWhen(cpu, 'the canary', (p) => p.target === v160 && p.wave === 1);
      const joined = await l.addNode('c5', cpu, 'b');
      await eventually(
        'the new node on the newest configuration',
        async () => (await l.applied(joined.name)) === v160,
        60_000,
      );
      expect((await l.status()).get(cpu)!.wave, 'while the canary still settles').to.equal(1);
      await l.patchCluster({ annotations: { [SETTLE_TIME]: null } });
      const done = await l.poolWhen(cpu, 'done', (p) => p.target === v160 && p.phase === 'Completed');
      expect(done).to.include({ updated: 5, failed: 0 });
    } finally {
      await l.patchCluster({ annotations: { [SETTLE_TIME]: null } });
    }
  });

  it('unguarded: a halted rollout goes on without the gate; a fix then reaches every failed node first', async () => {
    const bad = await l.setOsc(cpu, kubeletOsc(BAD_MAX_PODS));
    await l.poolWhen(cpu, 'the halt', (p) => p.target === bad && p.phase === 'Halted');
    await l.annotateCluster({ 'rollout.node-configuration.gardener.cloud/action': `unguarded:${cpu}` });
    const done = await l.poolWhen(
      cpu,
      'unguarded to the end',
      (p) => p.target === bad && p.phase === 'Completed',
    );
    expect(done).to.include({ updated: 0, failed: 5 });
    expect((await l.events('RolloutUnguarded')).at(-1)).to.match(/^Warning: /);
    const fix = await l.setOsc(cpu, kubeletOsc(170));
    const first = await l.poolWhen(cpu, 'the failed nodes first', (p) => p.target === fix && p.wave === 1);
    expect(first.members).to.have.length(5);
    await l.poolWhen(cpu, 'fixed', (p) => p.target === fix && p.phase === 'Completed' && p.updated === 5);
  });

  it('a deselected shoot gets its nodes back: every permission and the status removed', async () => {
    const labels = (value: string) => l.patchCluster({ labels: { [SELECTOR_LABEL]: value } });
    const permitted = async () =>
      (await Promise.all([...l.nodes.keys()].map((n) => l.readNode(n)))).filter(
        (n) => n.metadata?.annotations?.[PERMITTED_CHECKSUM_ANNOTATION] !== undefined,
      ).length;
    expect(await permitted()).to.equal(l.nodes.size);
    await labels('someone-else');
    await eventually('the permissions removed', async () => (await permitted()) === 0);
    await eventually('the status removed', async () => (await l.status()).size === 0);
    await labels(l.fixture.selector);
    await eventually('selected again: permissions back', async () => (await permitted()) === l.nodes.size);
  });

  it("gate off is today's behaviour: no permissions, no status, a bad configuration reaches every node", async () => {
    await l.annotateCluster({ 'rollout.node-configuration.gardener.cloud/gate': 'off' });
    await eventually('the permissions removed', async () => {
      const nodes = await Promise.all([...l.nodes.keys()].map((n) => l.readNode(n)));
      return nodes.every((n) => n.metadata?.annotations?.[PERMITTED_CHECKSUM_ANNOTATION] === undefined);
    });
    await eventually('the status removed', async () => (await l.status()).size === 0);
    const halts = (await l.events('RolloutHalted')).length;
    const bad = await l.setOsc(cpu, kubeletOsc(BAD_MAX_PODS));
    const at = await appliedTimes(
      l.inPool(cpu).map((n) => n.name),
      bad,
      60_000,
    );
    expect(at.size, 'every node applied the bad configuration').to.equal(5);
    await sleep(SETTLE_MS);
    expect((await l.events('RolloutHalted')).length).to.equal(halts);
    expect((await l.status()).size).to.equal(0);
  });
});
