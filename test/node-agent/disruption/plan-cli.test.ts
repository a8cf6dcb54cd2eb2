import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { type OperatingSystemConfig, type OscFile, PATH } from '../../../api/index.js';
import { yamlOf } from '../../../hack/landscape/ntv18-fixtures.js';
import { runCli } from '../support/cli-run.js';
import { useTempDirs } from '../support/harness.js';

const file = (path: string, data: string): OscFile => ({ path, content: { inline: { encoding: '', data } } });
const CONTAINERD = '[Service]\nExecStart=/usr/bin/containerd';

function osc(o: { maxPods: number; containerd?: string }): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: 'osc', labels: { 'worker.gardener.cloud/pool': 'worker-a' } },
    spec: {
      type: 't',
      purpose: 'reconcile',
      units: [
        { name: 'containerd.service', command: 'start', enable: true, content: o.containerd ?? CONTAINERD },
        {
          name: 'kubelet.service',
          command: 'start',
          enable: true,
          content: '[Service]\nExecStart=/opt/bin/kubelet',
          filePaths: ['/var/lib/kubelet/config/kubelet'],
        },
      ],
      files: [file('/var/lib/kubelet/config/kubelet', `maxPods: ${o.maxPods}\n`)],
    },
  };
}

describe('node-agent disruption: `gardener-node-agent plan --disruption-policy`', () => {
  const tempDir = useTempDirs();
  let dir: string;
  const at = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  beforeEach(() => {
    dir = tempDir();
  });
  const args = () => [
    'plan',
    '--previous',
    at('a.yaml', yamlOf(osc({ maxPods: 110 }))),
    '--next',
    at('b.yaml', yamlOf(osc({ maxPods: 120, containerd: `# comment only\n${CONTAINERD}` }))),
  ];

  it('says the action and the reason per unit in text', async () => {
    const r = await runCli([...args(), '--disruption-policy', 'defaults']);
    expect(r.code, r.stderr).to.equal(0);
    const first = r.stdout.split('\n')[0];
    expect(first).to.equal(
      'worker-a: containerd.service: None ← no effective change; kubelet.service: Restart ← /var/lib/kubelet/config/kubelet (maxPods 110 → 120)',
    );
    expect(r.stdout).to.contain(
      '  disruption: 1 restarts, 0 reloads, 0 drains, 1 restarts avoided; expected NotReady 0 s per node (1 kubelet restarts × 0 s)\n',
    );
  });

  it('and in JSON, with the cause and the rule behind it', async () => {
    const r = await runCli([...args(), '--disruption-policy', 'defaults', '-o', 'json']);
    const pool = JSON.parse(r.stdout).pools[0];
    expect(
      pool.units.map((u: { name: string; disruption: { action: string } }) => [u.name, u.disruption.action]),
    ).to.deep.equal([
      ['containerd.service', 'None'],
      ['kubelet.service', 'Restart'],
    ]);
    expect(pool.units[1].disruption.causes).to.deep.equal([
      {
        action: 'Restart',
        source: '/var/lib/kubelet/config/kubelet',
        path: '/var/lib/kubelet/config/kubelet',
        why: 'the kubelet reads its config file only when it starts',
        rule: 'default',
        summary: 'maxPods 110 → 120',
      },
    ]);
    expect(pool.disruption).to.deep.equal({
      restarts: 1,
      reloads: 0,
      drains: 0,
      reboots: 0,
      unaffected: 1,
      restartsAvoided: 1,
      restartsReplacedByReload: 0,
      kubeletRestarts: 1,
      notReadySecondsPerNode: 0,
    });
  });

  it('without the flag plans as with `defaults`', async () => {
    const byDefault = await runCli(args());
    const defaults = await runCli([...args(), '--disruption-policy', 'defaults']);
    expect(byDefault.code, byDefault.stderr).to.equal(0);
    expect(byDefault.stdout).to.equal(defaults.stdout);
    expect(byDefault.stdout.split('\n')[0]).to.contain('containerd.service: None ← no effective change');
  });

  it('with `none` restarts every changed unit, as upstream', async () => {
    const r = await runCli([...args(), '--disruption-policy', 'none']);
    expect(r.stdout.split('\n')[0]).to.equal(
      'worker-a: restart containerd.service ← unit file; restart kubelet.service ← /var/lib/kubelet/config/kubelet (maxPods 110 → 120)',
    );
    expect(r.stdout).to.not.contain('disruption:');
  });

  it('with --root takes the policy file on the node, as `apply` to that root does', async () => {
    const root = join(dir, 'root');
    mkdirSync(join(root, 'var/lib/gardener-node-agent'), { recursive: true });
    writeFileSync(
      join(root, 'var/lib/gardener-node-agent/disruption-policy.yaml'),
      'apiVersion: node-configuration.gardener.cloud/v1alpha1\nkind: DisruptionPolicy\nunits:\n- unit: kubelet.service\n  action: DrainAndRestart\n',
    );
    writeFileSync(join(root, PATH.lastAppliedOsc), yamlOf(osc({ maxPods: 110 })));
    const next = at('b.yaml', yamlOf(osc({ maxPods: 120 })));
    const r = await runCli(['plan', '--root', root, '--next', next]);
    expect(r.code, r.stderr).to.equal(0);
    // the tree holds only the last applied OSC: the plan repairs its drift too
    expect(r.stdout).to.contain('kubelet.service: DrainAndRestart ← /var/lib/kubelet/config/kubelet');
    expect(r.stdout).to.contain('\n    DrainAndRestart kubelet.service\n');
    const flagWins = await runCli(['plan', '--root', root, '--next', next, '--disruption-policy', 'none']);
    expect(flagWins.stdout).to.contain('restart kubelet.service ← ');
    expect(flagWins.stdout).to.not.contain('DrainAndRestart');
  });

  it('refuses a bad policy naming the field (exit 2)', async () => {
    const policy = at(
      'policy.yaml',
      'apiVersion: node-configuration.gardener.cloud/v1alpha1\nkind: DisruptionPolicy\nunits:\n- unit: kubelet.service\n  action: Reboot\n',
    );
    const r = await runCli([...args(), '--disruption-policy', policy]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.contain('units[0].action');
  });
});
