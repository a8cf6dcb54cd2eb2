/** The demo's pure parts: how nodes spread over pools and zones, the per-second buckets, the report. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseYaml } from '../../api/index.js';
import { checks, formatEntry, rolloutSvg, summaryTable } from '../../hack/demo/report.js';
import {
  type NodeResult,
  nodeSpecs,
  perSecondBuckets,
  reapKilledRuns,
  type ScenarioResult,
} from '../../hack/demo/scenario.js';

const cluster = parseYaml(readFileSync(join(import.meta.dirname, '../../examples/cluster.yaml'), 'utf8')) as {
  spec: { shoot: { spec: { kubernetes: { version: string }; provider: { workers: never[] } } } };
};
const workers = cluster.spec.shoot.spec.provider.workers;

function node(name: string, delayMs: number, appliedAt: number, extra: Partial<NodeResult> = {}): NodeResult {
  return {
    name,
    pool: 'cpu-worker',
    zone: 'europe-a',
    migration: {
      nodeInitAt: 1000,
      reportedAt: 9000,
      agentRestartedItself: true,
      unitsRestarted: ['kubelet.service'],
      legacyStateRemoved: true,
    },
    rollout: {
      delayMs,
      enqueuedAt: 50_000,
      enqueuedDelayMs: delayMs,
      appliedAt,
      reportedAt: appliedAt + 100,
      restarts: [{ unit: 'kubelet.service', at: appliedAt + 20 }],
      checksumOk: true,
    },
    token: { updatedAt: 80_200, ok: true },
    agentStarts: 2,
    ...extra,
  };
}

function result(nodes: NodeResult[]): ScenarioResult {
  return {
    startedAt: 0,
    maxDelaySeconds: 20,
    workDir: '/tmp/x',
    nodes,
    pools: [
      {
        name: 'cpu-worker',
        secret: 'gardener-node-agent-cpu-worker-46fed',
        checksum: 'a'.repeat(64),
        nodes: 2,
      },
    ],
    phases: {
      setup: { from: 0, to: 1 },
      legacy: { from: 0, to: 1 },
      migration: { from: 0, to: 1 },
      rollout: { from: 0, to: 1 },
      tokens: { from: 0, to: 1 },
    },
    migration: {
      statesSeen: ['Legacy', 'Migrating', 'CleaningUp', 'Completed'],
      completedAt: 10_000,
      legacyAccessSecretDeletes: 1,
      cleanupsMetric: 1,
      legacyLeft: [],
    },
    rollout: {
      change: 'shoot kubelet maxPods 110 -> 120',
      changedAt: 49_000,
      secretsChangedAt: 50_000,
      spanMs:
        Math.max(...nodes.map((n) => n.rollout.appliedAt)) -
        Math.min(...nodes.map((n) => n.rollout.appliedAt)),
      kubeletRestartsPerSecond: [1, 0, 1],
      maxKubeletRestartsInOneSecond: 1,
    },
    tokens: { rotatedAt: 80_000, newTokenAt: 80_100, allUpdatedAt: 80_300 },
    timeline: [],
  };
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

  it('checks hold for a good rollout and fail for an early apply', () => {
    const good = result([node('node-01', 0, 50_100), node('node-02', 10_000, 60_050)]);
    expect(checks(good).filter((c) => !c.ok)).to.deep.equal([]);
    const early = result([node('node-01', 0, 50_100), node('node-02', 10_000, 55_000)]);
    expect(checks(early).find((c) => !c.ok)?.text).to.contain('applied early: node-02');
    const twice = result([
      node('node-01', 0, 50_100, { migration: { ...node('x', 0, 0).migration, legacyStateRemoved: false } }),
    ]);
    expect(
      checks({ ...twice, migration: { ...twice.migration, legacyAccessSecretDeletes: 2 } }).filter(
        (c) => !c.ok,
      ),
    ).to.have.length(2);
  });

  it('renders a table row and a chart row per node, escaping text', () => {
    const r = result([node('node-01', 0, 50_100), node('node-02', 10_000, 60_050)]);
    const table = summaryTable(r);
    expect(table).to.match(
      /^node-01\s+cpu-worker\s+europe-a\s+\+8\.0s\s+1\s+0\.00s\s+0\.1s\s+kubelet\.service\s+\+0\.2s\s+ok$/m,
    );
    const svg = rolloutSvg({ ...r, rollout: { ...r.rollout, change: 'a < b & "c"' } });
    expect(svg).to.contain('a &lt; b &amp; &quot;c&quot;');
    expect(svg.match(/<circle /g)).to.have.length(2);
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
