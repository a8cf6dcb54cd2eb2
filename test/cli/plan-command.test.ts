/**
 * `gardener-osc plan` on real renders of the example shoot (three worker pools): a kubelet change in
 * one pool, a sysctl change, a change that restarts the agent itself, pools added and removed, the
 * JSON and text forms, and agreement with `gardener-node-agent plan`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ANNOTATION, parseYaml, stringifyYaml } from '../../api/index.js';
import { poolOscs } from '../../cli/plan/pool-oscs.js';
import { DEFAULT_NOW, EXAMPLE_CLUSTER, EXAMPLE_VALUES, render } from '../../cli/render-command.js';
import type { PlanView, PoolView } from '../../node-agent/plan-view/index.js';
import { EMPTY_POLICY } from '../../node-agent/planner/disruption-policy.js';
import { expectGolden } from '../golden.js';
import { runCli } from '../node-agent/support/cli-run.js';
import { example, gpuMaxPods, plan, pool, summaries, values, worker } from './plan-fixtures.js';
import { runMain } from './run-main.js';

describe('gardener-osc plan', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'plan-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : stringifyYaml(content));
    return path;
  };

  describe('on real renders', () => {
    it('a kubelet change in one pool of three restarts kubelet there and nowhere else, naming the file and the setting', () => {
      const { view, warnings } = plan(gpuMaxPods());
      expect(warnings).to.deep.equal([]);
      expect(summaries(view)).to.deep.equal([
        'cpu-worker: unchanged',
        'gpu-worker: restart kubelet.service ← /var/lib/kubelet/config/kubelet (maxPods 64 → 74)',
        'arm-worker: unchanged',
      ]);
      const gpu = pool(view, 'gpu-worker');
      expect(gpu).to.include({
        change: 'changed',
        changed: true,
        nodeAgentRestart: false,
        daemonReload: true,
      });
      expect(gpu.units).to.deep.equal([
        {
          name: 'kubelet.service',
          action: 'restart',
          reasons: [
            {
              kind: 'file',
              path: '/var/lib/kubelet/config/kubelet',
              change: 'changed',
              summary: 'maxPods 64 → 74',
            },
          ],
        },
      ]);
      expect(gpu.files.map((f) => [f.path, f.change, f.mode])).to.deep.equal([
        ['/var/lib/kubelet/config/kubelet', 'changed', { from: '0644', to: '0644' }],
      ]);
      expect(gpu.files[0]!.diff).to.contain('\n-maxPods: 64\n+maxPods: 74\n');
      expect(gpu.files[0]!.diff).to.match(
        /^--- a\/var\/lib\/kubelet\/config\/kubelet\n\+\+\+ b\/var\/lib\/kubelet\/config\/kubelet\n@@ /,
      );
      expect(gpu.rollout).to.deep.include({
        strategy: 'waves',
        canary: 1,
        growth: 2,
        maxPerWave: '25%',
        settleTime: '1m0s',
        failuresTolerated: 0,
        waves: [1, 1, 1],
        nodes: 3,
      });
      for (const name of ['cpu-worker', 'arm-worker'])
        expect(pool(view, name)).to.include({ change: 'unchanged', changed: false, summary: 'unchanged' });
    });

    it('the checksums are those of the rendered OSC secrets (checksum/data-script), before and after', () => {
      const { view } = plan(gpuMaxPods());
      const checksums = (cluster: string) => {
        const objects = render({
          cluster,
          values: EXAMPLE_VALUES,
          target: 'shoot',
          now: DEFAULT_NOW,
        }).objects;
        const out = new Map<string, string>();
        for (const o of objects as {
          metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
        }[]) {
          const pool = o.metadata.labels?.['worker.gardener.cloud/pool'];
          const sum = o.metadata.annotations?.[ANNOTATION.checksumDataScript];
          if (pool && sum) out.set(pool, sum);
        }
        return out;
      };
      const before = checksums(EXAMPLE_CLUSTER);
      const after = checksums(file('b.yaml', gpuMaxPods()));
      for (const p of view.pools)
        expect(p.checksum).to.deep.equal({ from: before.get(p.name), to: after.get(p.name) });
      expect(before.get('gpu-worker')).not.to.equal(after.get('gpu-worker'));
    });

    it('a sysctl change restarts systemd-sysctl.service because of its file, not kubelet', () => {
      const next = example();
      worker(next, 'cpu-worker').sysctls = { 'net.ipv4.tcp_keepalive_time': '600' };
      const { view } = plan(next);
      expect(summaries(view)[0]).to.equal(
        'cpu-worker: restart systemd-sysctl.service ← /etc/sysctl.d/99-k8s-general.conf (net.ipv4.tcp_keepalive_time 300 → 600)',
      );
      expect(pool(view, 'cpu-worker').units.map((u) => u.name)).to.deep.equal(['systemd-sysctl.service']);
      // least disruption, as agents run by default: the same unit, with the rule's reason
      const least = plan(next, values(), EMPTY_POLICY).view;
      expect(summaries(least)[0]).to.equal(
        'cpu-worker: systemd-sysctl.service: Restart ← /etc/sysctl.d/99-k8s-general.conf (net.ipv4.tcp_keepalive_time 300 → 600)',
      );
      expect(pool(least, 'cpu-worker').disruption).to.deep.include({
        restarts: 1,
        kubeletRestarts: 0,
        notReadySecondsPerNode: 0,
      });
      expect(pool(view, 'cpu-worker').files[0]!.diff).to.contain(
        '-net.ipv4.tcp_keepalive_time = 300\n+net.ipv4.tcp_keepalive_time = 600\n',
      );
    });

    it('a new node-agent image restarts the agent itself in every pool, and says so', () => {
      const nextValues = values();
      nextValues.images = {
        nodeAgent: 'europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.92.0',
      };
      const { view } = plan(example(), nextValues);
      // the agent's own restart is never a least-disruption decision: the same plan by default
      const least = plan(example(), nextValues, EMPTY_POLICY).view;
      expect(summaries(least)).to.deep.equal(summaries(view));
      for (const p of view.pools) {
        expect(p.nodeAgentRestart, p.name).to.equal(true);
        expect(p.summary).to.match(
          /^restart gardener-node-agent\.service \(itself\) ← \/opt\/bin\/gardener-node-agent \(image europe-docker\.pkg\.dev\/gardener-project\/releases\/gardener\/node-agent:v1\.91\.4 → v1\.92\.0\)/,
        );
        const agent = p.units.find((u) => u.name === 'gardener-node-agent.service')!;
        expect(agent.action).to.equal('restart');
        expect(p.files.find((f) => f.path === '/opt/bin/gardener-node-agent')!.image).to.deep.equal({
          from: 'europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.91.4 /gardener-node-agent',
          to: 'europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.92.0 /gardener-node-agent',
        });
      }
    });

    it('lists a pool added (a first apply: every unit starts) and a pool removed', () => {
      const next = example();
      const workers = next.spec.shoot.spec.provider.workers;
      const arm = workers.find((w) => w.name === 'arm-worker')!;
      next.spec.shoot.spec.provider.workers = [
        ...workers.filter((w) => w.name !== 'gpu-worker'),
        { ...structuredClone(arm), name: 'edge-worker' },
      ];
      const { view } = plan(next);
      expect(view.pools.map((p) => [p.name, p.change])).to.deep.equal([
        ['cpu-worker', 'unchanged'],
        ['arm-worker', 'unchanged'],
        ['edge-worker', 'added'],
        ['gpu-worker', 'removed'],
      ]);
      const edge = pool(view, 'edge-worker');
      expect(edge.checksum.from).to.equal(undefined);
      expect(edge.units.find((u) => u.name === 'kubelet.service')).to.deep.include({
        action: 'start',
        reasons: [{ kind: 'first-apply' }],
      });
      expect(edge.files.every((f) => f.change === 'added')).to.equal(true);
      expect(pool(view, 'gpu-worker')).to.include({
        changed: true,
        summary: 'pool removed: its OSC secret goes, its machines are deleted (nothing is applied)',
      });
    });

    it('agrees with gardener-node-agent plan on the same osc.yaml files, unit for unit and file for file', async () => {
      const next = gpuMaxPods();
      const oscOf = (cluster: string) =>
        poolOscs(render({ cluster, values: EXAMPLE_VALUES, target: 'shoot', now: DEFAULT_NOW }).objects).get(
          'gpu-worker',
        )!;
      const a = oscOf(EXAMPLE_CLUSTER);
      const b = oscOf(file('b.yaml', next));
      const node = await runCli([
        'plan',
        '--previous',
        file('a.osc', a.text),
        '--next',
        file('b.osc', b.text),
        '-o',
        'json',
      ]);
      expect(node.code).to.equal(0);
      const nodeView = JSON.parse(node.stdout) as PlanView;
      const {
        rollout: _rollout,
        secret: _secret,
        ...fleet
      } = JSON.parse(JSON.stringify(pool(plan(next, values(), EMPTY_POLICY).view, 'gpu-worker'))) as PoolView;
      expect(nodeView.pools).to.deep.equal([fleet]);
    });

    it('the JSON form has the documented shape (golden: test/golden/plan/kubelet-change-defaults.json)', async () => {
      const r = await runMain([
        'plan',
        '--cluster',
        EXAMPLE_CLUSTER,
        '--next',
        file('b.yaml', gpuMaxPods()),
        '--values',
        EXAMPLE_VALUES,
        '-o',
        'json',
      ]);
      expect(r.code).to.equal(0);
      expectGolden('plan/kubelet-change-defaults.json', r.stdout);
      // `none`: the agents restart every changed unit, as upstream's; no disruption sums
      const none = await runMain([
        'plan',
        '--cluster',
        EXAMPLE_CLUSTER,
        '--next',
        file('n.yaml', gpuMaxPods()),
        '--values',
        EXAMPLE_VALUES,
        '-o',
        'json',
        '--disruption-policy',
        'none',
      ]);
      expect(none.code).to.equal(0);
      expectGolden('plan/kubelet-change.json', none.stdout);
      const json = JSON.parse(r.stdout) as { pools: Record<string, unknown>[] };
      for (const p of json.pools) {
        expect(p).to.include.keys('name', 'changed', 'checksum', 'units', 'files', 'summary', 'change');
        expect(p.checksum).to.include.keys('from', 'to');
      }
      const gpu = json.pools[1] as { units: Record<string, unknown>[]; files: Record<string, unknown>[] };
      expect(gpu.units[0]).to.have.keys('name', 'action', 'reasons', 'disruption');
      expect(gpu.files[0]).to.include.keys('path', 'change', 'diff', 'mode', 'summary');
      const yaml = await runMain([
        'plan',
        '--cluster',
        EXAMPLE_CLUSTER,
        '--next',
        file('c.yaml', gpuMaxPods()),
        '--values',
        EXAMPLE_VALUES,
        '-o',
        'yaml',
      ]);
      expect(parseYaml(yaml.stdout)).to.deep.equal(json);
    });

    it('the text form leads with one summary line per pool, then the changed pool with its diff', async () => {
      const r = await runMain([
        'plan',
        '--cluster',
        EXAMPLE_CLUSTER,
        '--next',
        file('b.yaml', gpuMaxPods()),
        '--values',
        EXAMPLE_VALUES,
      ]);
      expect(r.code).to.equal(0);
      expectGolden('plan/kubelet-change-defaults.txt', r.stdout);
      for (const doc of ['README.md', 'docs/plan.md'])
        expect(
          readFileSync(join(import.meta.dirname, '../..', doc), 'utf8'),
          `${doc} shows this plan`,
        ).to.contain(r.stdout);
      expect(r.stdout.split('\n').slice(0, 3)).to.deep.equal([
        'cpu-worker: unchanged',
        'gpu-worker: kubelet.service: Restart ← /var/lib/kubelet/config/kubelet (maxPods 64 → 74)',
        'arm-worker: unchanged',
      ]);
      expect(r.stdout).to.contain(
        '  disruption: 1 restarts, 0 reloads, 0 drains, 0 restarts avoided; expected NotReady 0 s per node (1 kubelet restarts × 0 s)\n',
      );
      const none = await runMain([
        'plan',
        '--cluster',
        EXAMPLE_CLUSTER,
        '--next',
        file('n.yaml', gpuMaxPods()),
        '--values',
        EXAMPLE_VALUES,
        '--disruption-policy',
        'none',
      ]);
      expect(none.code).to.equal(0);
      expectGolden('plan/kubelet-change.txt', none.stdout);
      expect(none.stdout.split('\n')[1]).to.equal(
        'gpu-worker: restart kubelet.service ← /var/lib/kubelet/config/kubelet (maxPods 64 → 74)',
      );
    });
  });
});
