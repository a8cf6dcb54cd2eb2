/** `gardener-osc plan --disruption-policy`: the fleet plan as agents with least disruption run it (the default). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runMain } from './run-main.js';

const ROOT = join(import.meta.dirname, '../..');
const ARGV = [
  'plan',
  '--cluster',
  join(ROOT, 'examples/cluster.yaml'),
  '--next',
  join(ROOT, 'examples/cluster-new.yaml'),
  '--values',
  join(ROOT, 'examples/values.yaml'),
];

describe('gardener-osc plan --disruption-policy', function () {
  this.timeout(60_000);

  it('says the action per unit and sums the disruption per pool', async () => {
    const r = await runMain([...ARGV, '--disruption-policy', 'defaults', '-o', 'json']);
    expect(r.code, r.stderr).to.equal(0);
    const pools = JSON.parse(r.stdout).pools as {
      name: string;
      summary: string;
      disruption?: { restarts: number; drains: number };
    }[];
    const gpu = pools.find((p) => p.name === 'gpu-worker');
    expect(gpu?.summary).to.equal(
      'kubelet.service: Restart ← /var/lib/kubelet/config/kubelet (maxPods 64 → 74)',
    );
    expect(gpu?.disruption).to.include({
      restarts: 1,
      drains: 0,
      restartsAvoided: 0,
      kubeletRestarts: 1,
      notReadySecondsPerNode: 0,
    });
    expect(pools.find((p) => p.name === 'cpu-worker')?.disruption).to.include({ restarts: 0 });
  });

  it('without the flag plans as with `defaults`; `none` plans upstream restarts and sums nothing', async () => {
    const byDefault = await runMain([...ARGV, '-o', 'json']);
    const defaults = await runMain([...ARGV, '--disruption-policy', 'defaults', '-o', 'json']);
    expect(byDefault.stdout).to.equal(defaults.stdout);
    const none = await runMain([...ARGV, '--disruption-policy', 'none', '-o', 'json']);
    expect(none.code, none.stderr).to.equal(0);
    const pools = JSON.parse(none.stdout).pools as { summary: string; disruption?: unknown }[];
    expect(pools[1]?.summary).to.equal(
      'restart kubelet.service ← /var/lib/kubelet/config/kubelet (maxPods 64 → 74)',
    );
    expect(pools.every((p) => p.disruption === undefined)).to.equal(true);
  });

  it('a drain of the kubelet adds the time until Ready to the expected NotReady seconds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'osc-policy-'));
    try {
      const policy = join(dir, 'policy.yaml');
      writeFileSync(
        policy,
        'apiVersion: node-configuration.gardener.cloud/v1alpha1\nkind: DisruptionPolicy\nunits:\n- unit: kubelet.service\n  action: DrainAndRestart\n',
      );
      const r = await runMain([...ARGV, '--disruption-policy', policy]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.contain(
        '  disruption: 0 restarts, 0 reloads, 1 drains, 0 restarts avoided; expected NotReady 0.88 s per node (1 kubelet restarts × 0 s + 1 drains × 0.88 s until Ready)\n',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a policy the agents could not run, naming the field (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'osc-policy-'));
    try {
      const policy = join(dir, 'policy.yaml');
      writeFileSync(
        policy,
        'apiVersion: node-configuration.gardener.cloud/v1alpha1\nkind: DisruptionPolicy\npaths:\n- path: /etc/x\n  action: Reboot\n',
      );
      const r = await runMain([...ARGV, '--disruption-policy', policy]);
      expect(r.code).to.equal(2);
      expect(r.stderr).to.contain('paths[0].action');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
