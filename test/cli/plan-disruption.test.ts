/** `gardener-osc plan --disruption-policy`: the fleet plan as agents with least disruption run it. */
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
    expect(gpu?.disruption).to.include({ restarts: 1, drains: 0, restartsAvoided: 0 });
    expect(pools.find((p) => p.name === 'cpu-worker')?.disruption).to.include({ restarts: 0 });
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
