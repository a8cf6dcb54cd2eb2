/** The demo's pure parts: how nodes spread over pools and zones, the per-second buckets, the report. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseYaml } from '../../api/index.js';
import { checks, formatEntry, rolloutSvg, summaryTable } from '../../hack/demo/report.js';
import {
  type NodeInRollout,
  type NodeResult,
  nodeSpecs,
  perSecondBuckets,
  type RolloutChange,
  reapKilledRuns,
  type ScenarioResult,
  type WaveSeen,
} from '../../hack/demo/scenario.js';

const cluster = parseYaml(readFileSync(join(import.meta.dirname, '../../examples/cluster.yaml'), 'utf8')) as {
  spec: { shoot: { spec: { kubernetes: { version: string }; provider: { workers: never[] } } } };
};
const workers = cluster.spec.shoot.spec.provider.workers;

const T1 = 'a'.repeat(64);
const T2 = 'b'.repeat(64);

/** A node of the rollout: permitted at `at`, reported `result` 3 s later. */
function inRollout(
  name: string,
  wave: number,
  at: number,
  result: 'Succeeded' | 'Failed' = 'Succeeded',
  zone = 'europe-a',
): NodeInRollout {
  return {
    node: name,
    pool: 'cpu-worker',
    zone,
    wave,
    permittedAt: at,
    appliedAt: at + 100,
    reportedAt: at + 3000,
    result,
    ...(result === 'Failed' ? { reason: 'UnitNotActive' } : {}),
    restarts: [{ unit: 'kubelet.service', at: at + 120 }],
  };
}

function node(changes: NodeInRollout[], extra: Partial<NodeResult> = {}): NodeResult {
  const name = changes[0]!.node;
  return {
    name,
    pool: 'cpu-worker',
    zone: changes[0]!.zone,
    migration: {
      nodeInitAt: 1000,
      reportedAt: 9000,
      agentRestartedItself: true,
      unitsRestarted: ['kubelet.service'],
      legacyStateRemoved: true,
    },
    rollout: { delayMs: 0, changes, checksumOk: true },
    limits: { identity: `gardener.cloud:node-agent:machine:${name}`, probes: 17, unexpected: [] },
    agentStarts: 2,
    ...extra,
  };
}

function change(label: string, target: string, nodes: NodeInRollout[], halted = false): RolloutChange {
  const waves = [...new Set(nodes.map((n) => n.wave!))].map((wave) => {
    const members = nodes.filter((n) => n.wave === wave);
    return {
      pool: 'cpu-worker',
      wave,
      kind: (wave === 1 ? (label === 'the fix' ? 'first' : 'canary') : 'wave') as WaveSeen['kind'],
      nodes: members.map((n) => n.node),
      at: Math.min(...members.map((n) => n.permittedAt!)),
    };
  });
  return {
    label,
    targets: new Map([['cpu-worker', target]]),
    nodes: new Map(nodes.map((n) => [n.node, n])),
    waves,
    pools: new Map([
      [
        'cpu-worker',
        {
          pool: 'cpu-worker',
          phase: halted ? 'Halted' : 'Completed',
          at: Math.max(...nodes.map((n) => n.reportedAt!)) + 3000,
          ...(halted
            ? { reason: 'node node-01, checksum aaaaaaaaaaaa: UnitNotActive: kubelet.service is inactive' }
            : {}),
        },
      ],
    ]),
  };
}

function result(
  nodes: NodeResult[],
  changes: RolloutChange[],
  bad?: ScenarioResult['rollout']['bad'],
): ScenarioResult {
  return {
    startedAt: 0,
    maxDelaySeconds: 20,
    workDir: '/tmp/x',
    nodes,
    pools: [
      {
        name: 'cpu-worker',
        secret: 'gardener-node-agent-cpu-worker-46fed',
        checksum: T1,
        nodes: nodes.length,
      },
    ],
    phases: {
      setup: { from: 0, to: 1 },
      legacy: { from: 0, to: 1 },
      migration: { from: 0, to: 1 },
      rollout: { from: 0, to: 1 },
      limits: { from: 0, to: 1 },
    },
    migration: {
      statesSeen: ['Legacy', 'Migrating', 'CleaningUp', 'Completed'],
      completedAt: 10_000,
      legacyAccessSecretDeletes: 1,
      cleanupsMetric: 1,
      legacyLeft: [],
    },
    rollout: {
      mode: bad ? 'broken' : 'healthy',
      change: 'shoot kubelet maxPods 110 -> 120',
      changedAt: 49_000,
      secretsChangedAt: 50_000,
      settleMs: 3000,
      canary: 1,
      changes,
      ...(bad ? { bad } : {}),
      spanMs: 7000,
      kubeletRestartsPerSecond: [1, 0, 1],
      maxKubeletRestartsInOneSecond: 1,
    },
    limits: { probes: ['get OSC secret of its pool P: allowed'] },
    timeline: [],
  };
}

/** A healthy rollout: the canary at 50 s (reported at 53 s), the next wave `next` ms later. */
function healthy(next: number): ScenarioResult {
  const nodes = [
    inRollout('node-01', 1, 50_000),
    inRollout('node-02', 2, 50_000 + next, 'Succeeded', 'europe-b'),
  ];
  return result(
    nodes.map((n) => node([n])),
    [change('kubelet change', T1, nodes)],
  );
}

/** A bad change halted at the canary, then the fix reaching it first. */
function broken(applied: number): ScenarioResult {
  const bad = [inRollout('node-01', 1, 50_000, 'Failed')];
  const fix = [inRollout('node-01', 1, 70_000), inRollout('node-02', 2, 77_000, 'Succeeded', 'europe-b')];
  // node-03 never got the bad change: it runs the previous spec all along (no wave of the fix)
  const kept: NodeInRollout = {
    node: 'node-03',
    pool: 'cpu-worker',
    zone: 'europe-c',
    permittedAt: 60_000,
    restarts: [],
  };
  const nodes = [
    node([bad[0]!, fix[0]!]),
    node([{ node: 'node-02', pool: 'cpu-worker', zone: 'europe-b', restarts: [] }, fix[1]!]),
    node([{ node: 'node-03', pool: 'cpu-worker', zone: 'europe-c', restarts: [] }, kept]),
  ];
  const fixed = change('the fix', T2, fix);
  return result(
    nodes,
    [
      change('bad configuration', T1, bad, true),
      { ...fixed, nodes: new Map([...fixed.nodes, ['node-03', kept]]) },
    ],
    { applied, nodes: 3, pools: 1 },
  );
}

describe('hack/demo: pure parts', () => {
  it("spreads nodes round robin over the example's pools, zones round robin per pool", () => {
    const specs = nodeSpecs(5, workers, cluster.spec.shoot.spec.kubernetes.version);
    expect(
      specs.map((s) => `${s.name} ${s.pool} ${s.zone} ${s.kubernetesVersion} ${s.criName ?? '-'}`),
    ).to.deep.equal([
      'node-01 cpu-worker europe-a 1.30.5 containerd',
      'node-02 gpu-worker europe-a 1.29.8 -',
      'node-03 arm-worker europe-b 1.31.2 containerd',
      'node-04 cpu-worker europe-b 1.30.5 containerd',
      'node-05 gpu-worker europe-b 1.29.8 -',
    ]);
  });

  it('fills pools up to their maximum first (gpu-worker has 3)', () => {
    const specs = nodeSpecs(12, workers, '1.30.5');
    const count = (pool: string) => specs.filter((s) => s.pool === pool).length;
    expect([count('cpu-worker'), count('gpu-worker'), count('arm-worker')]).to.deep.equal([5, 3, 4]);
    expect(new Set(specs.map((s) => s.name)).size).to.equal(12);
  });

  it('counts events per 1 s bucket from t0', () => {
    expect(perSecondBuckets([1000, 1999, 2000, 4500], 1000)).to.deep.equal([2, 1, 0, 1]);
    expect(perSecondBuckets([], 0)).to.deep.equal([]);
  });

  it('checks hold for a rollout in waves and fail for a wave that began before the gate passed', () => {
    expect(checks(healthy(7000)).filter((c) => !c.ok)).to.deep.equal([]);
    const early = checks(healthy(4000)).find((c) => !c.ok);
    expect(early?.text).to.equal(
      'kubelet change: got the change before the wave before passed the gate: node-02',
    );
    const twice = healthy(7000);
    const legacyLeft = {
      ...twice,
      nodes: twice.nodes.map((n) => ({ ...n, migration: { ...n.migration, legacyStateRemoved: false } })),
      migration: { ...twice.migration, legacyAccessSecretDeletes: 2 },
    };
    expect(checks(legacyLeft).filter((c) => !c.ok)).to.have.length(2);
  });

  it('asks a canary of every pool with nodes only: a pool without any completes at once', () => {
    const r = healthy(7000);
    const kubeletChange = r.rollout.changes[0]!;
    // the shoot's arm-worker has no node in this run (fewer nodes than pools): its rollout has no wave
    const withEmptyPool = {
      ...r,
      rollout: {
        ...r.rollout,
        changes: [{ ...kubeletChange, targets: new Map([...kubeletChange.targets, ['arm-worker', T2]]) }],
      },
    };
    const canary = (x: ScenarioResult) => checks(x).find((c) => c.text.includes('a canary in each of'));
    expect(canary(withEmptyPool)).to.deep.include({ ok: true });
    expect(canary(withEmptyPool)?.text).to.match(/a canary in each of 1\/1 pools with nodes/);
    // a pool with nodes but no canary still fails it
    const noCanary = {
      ...r,
      rollout: {
        ...r.rollout,
        changes: [{ ...kubeletChange, waves: kubeletChange.waves.filter((w) => w.kind !== 'canary') }],
      },
    };
    expect(canary(noCanary)).to.deep.include({ ok: false });
  });

  it('--break-rollout: at most the canaries took the bad change, the fix reached them first', () => {
    expect(checks(broken(1)).filter((c) => !c.ok)).to.deep.equal([]);
    const ok = checks(broken(1)).map((c) => c.text);
    expect(ok).to.include(
      'bad configuration applied on 1 of 3 nodes (at most canary 1 × 1 pools = 1); halted: cpu-worker',
    );
    expect(
      checks(broken(2))
        .filter((c) => !c.ok)
        .map((c) => c.text)[0],
    ).to.match(/^bad configuration applied on 2 of 3 nodes \(at most canary 1 × 1 pools = 1\)/);
  });

  it('checks fail for an agent on another identity, or a request its identity should not get', () => {
    const withLimits = (limits: NodeResult['limits']): ScenarioResult => {
      const r = healthy(7000);
      return { ...r, nodes: r.nodes.map((n, i) => (i === 0 ? { ...n, limits } : n)) };
    };
    const shared = withLimits({
      identity: 'system:serviceaccount:kube-system:gardener-node-agent',
      probes: 17,
      unexpected: [],
    });
    expect(checks(shared).find((c) => !c.ok)?.text).to.match(/^1\/2 agents run with their own identity/);
    const tainted = withLimits({
      identity: 'gardener.cloud:node-agent:machine:node-01',
      probes: 17,
      unexpected: ['taint Node B NoExecute: allowed'],
    });
    expect(checks(tainted).find((c) => !c.ok)?.text).to.contain('node-01: taint Node B NoExecute: allowed');
    expect(summaryTable(tainted)).to.match(/^node-01 .*\s16\/17\s+FAIL$/m);
  });

  it('renders a table row and a chart row per node, the waves and the halt, escaping text', () => {
    const r = healthy(7000);
    const table = summaryTable(r);
    expect(table).to.match(
      /^node-01\s+cpu-worker\s+europe-a\s+\+8\.0s\s+1\s+1\s+0\.0s\s+Succeeded\s+kubelet\.service\s+17\/17\s+ok$/m,
    );
    const svg = rolloutSvg({ ...r, rollout: { ...r.rollout, change: 'a < b & "c"' } });
    expect(svg).to.contain('a &lt; b &amp; &quot;c&quot;');
    expect(svg.match(/<circle /g)).to.have.length(2);
    expect(svg.match(/>w[12]</g)).to.have.length(2);
    const halted = rolloutSvg(broken(1));
    expect(halted).to.contain('>halted<');
    expect(halted).to.contain('bad configuration applied on 1 of 3 nodes; rollout halted');
    expect(summaryTable(broken(1))).to.match(/^node-01 .* Failed .* 1 at 20\.0s\s+Succeeded .* ok$/m);
    expect(
      formatEntry({ t: 12_345, phase: 'rollout', kind: 'node', node: 'node-01', text: 'applied' }),
    ).to.equal('[  12.3s]   node-01  applied');
  });

  it('removes the temp dirs of a demo run that was killed, never those of a running one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-reap-'));
    try {
      const dead = spawnSync('true').pid;
      const run = (name: string, pid: number, envtest: string) => {
        mkdirSync(join(dir, name));
        mkdirSync(join(dir, envtest));
        writeFileSync(
          join(dir, name, 'owner.json'),
          JSON.stringify({ pid, envtestDirs: [join(dir, envtest), join(dir, 'not-an-envtest')] }),
        );
      };
      run('gardener-osc-demo-run-killed', dead, 'envtest-demo-x-seed-1');
      run('gardener-osc-demo-run-alive', process.pid, 'envtest-demo-y-seed-1');
      mkdirSync(join(dir, 'not-an-envtest'));
      mkdirSync(join(dir, 'gardener-osc-demo-run-starting'));
      expect(reapKilledRuns(dir).sort()).to.deep.equal(
        [join(dir, 'envtest-demo-x-seed-1'), join(dir, 'gardener-osc-demo-run-killed')].sort(),
      );
      for (const left of [
        'gardener-osc-demo-run-alive',
        'envtest-demo-y-seed-1',
        'not-an-envtest',
        'gardener-osc-demo-run-starting',
      ])
        expect(existsSync(join(dir, left)), left).to.equal(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
