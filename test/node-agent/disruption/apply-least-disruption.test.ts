import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { OperatingSystemConfig, OscFile, OscUnit } from '../../../api/index.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { HostRoot } from '../../../node-agent/applier/host-root.js';
import { readProgress } from '../../../node-agent/applier/progress-file.js';
import type { DisruptionPolicy } from '../../../node-agent/planner/disruption-policy.js';
import { applyTo } from '../support/apply-fixture.js';
import { useTempDirs } from '../support/harness.js';

const file = (path: string, data: string): OscFile => ({ path, content: { inline: { encoding: '', data } } });
const KUBELET = '[Service]\nExecStart=/opt/bin/kubelet --config=/var/lib/kubelet/config/kubelet';
const VALITAIL = '[Service]\nExecStart=/usr/bin/valitail\nExecReload=/bin/kill -HUP $MAINPID';

function osc(o: { kubelet?: string; valitail?: string; journald?: string } = {}): OperatingSystemConfig {
  const units: OscUnit[] = [
    { name: 'kubelet.service', command: 'start', enable: true, content: o.kubelet ?? KUBELET },
    {
      name: 'valitail.service',
      command: 'start',
      enable: true,
      content: VALITAIL,
      filePaths: ['/etc/valitail/config.yaml'],
    },
  ];
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: 'osc' },
    spec: {
      type: 't',
      purpose: 'reconcile',
      units,
      files: [
        file('/etc/valitail/config.yaml', o.valitail ?? 'a: 1\n'),
        file('/etc/systemd/journald.conf', o.journald ?? '[Journal]\nMaxFileSec=24h\n'),
      ],
    },
  };
}

const POLICY: DisruptionPolicy = { paths: [], units: [{ unit: 'valitail.service', action: 'Reload' }] };

describe('node-agent disruption: the applier runs the least-disruption plan', () => {
  const tempDir = useTempDirs();
  let root: string;
  let images: string;

  beforeEach(async () => {
    root = tempDir('gna-root-');
    images = tempDir('gna-images-');
    // the OS's journald unit, as a node has it
    mkdirSync(join(root, 'usr/lib/systemd/system'), { recursive: true });
    writeFileSync(join(root, 'usr/lib/systemd/system/systemd-journald.service'), '[Service]\n');
    await applyTo(root, osc(), images, { disruptionPolicy: POLICY });
  });

  const next = () =>
    osc({ kubelet: `# a comment\n${KUBELET}`, valitail: 'a: 2\n', journald: '[Journal]\nMaxFileSec=12h\n' });

  it('writes everything, restarts nothing a comment changed, reloads what the policy says, restarts journald', async () => {
    const run = await applyTo(root, next(), images, { disruptionPolicy: POLICY });
    expect(run.ops).to.deep.equal([
      'enable kubelet.service',
      'enable valitail.service',
      'daemon-reload',
      'reload valitail.service',
      'restart systemd-journald.service',
    ]);
    expect(readFileSync(join(root, 'etc/systemd/system/kubelet.service'), 'utf8')).to.equal(
      `# a comment\n${KUBELET}`,
    );
    expect(readFileSync(join(root, 'etc/systemd/journald.conf'), 'utf8')).to.contain('12h');
    expect(run.result.plan.disruption?.map((d) => `${d.unit} ${d.baseline}→${d.action}`)).to.deep.equal([
      'kubelet.service Restart→None',
      'valitail.service Restart→Reload',
      'systemd-journald.service None→Restart',
    ]);
  });

  it('without a policy restarts every changed unit, as upstream', async () => {
    const run = await applyTo(root, next(), images);
    expect(run.ops).to.deep.equal([
      'enable kubelet.service',
      'enable valitail.service',
      'daemon-reload',
      'restart kubelet.service',
      'restart valitail.service',
    ]);
  });

  it('persists the decision: an apply cut off before the reload resumes with the same actions', async () => {
    const systemd = new MemorySystemd();
    const crash = new Error('crash');
    await applyTo(root, next(), images, {
      systemd,
      disruptionPolicy: POLICY,
      crashPoint: (where) => {
        if (where === 'before reload valitail.service') throw crash;
      },
    }).then(
      () => expect.fail('no crash'),
      (e) => expect(e).to.equal(crash),
    );
    const progress = await readProgress(new HostRoot(root));
    expect(progress?.plan.commands.map((c) => c.command)).to.deep.equal(['reload', 'restart']);
    expect(progress?.plan.disruption?.map((d) => d.action)).to.deep.equal(['None', 'Reload', 'Restart']);
    // resumed without the policy: the persisted plan decides, not the caller
    const resumed = await applyTo(root, next(), images);
    expect(resumed.result.resumed).to.equal(true);
    expect(resumed.ops).to.deep.equal(['reload valitail.service', 'restart systemd-journald.service']);
  });

  describe('DrainAndRestart', () => {
    const DRAIN: DisruptionPolicy = {
      paths: [],
      units: [{ unit: 'valitail.service', action: 'DrainAndRestart' }],
    };

    it('cordons and evicts before the unit commands, waits for Ready and uncordons after them', async () => {
      const systemd = new MemorySystemd();
      const calls: string[] = [];
      const record = (what: string) => async () => {
        calls.push(`${what} (after ${systemd.ops.length} systemd calls)`);
      };
      const drain = {
        cordon: record('cordon'),
        evictPods: record('evict'),
        waitReady: record('wait-ready'),
        uncordon: record('uncordon'),
      };
      const run = await applyTo(root, osc({ valitail: 'a: 2\n' }), images, {
        systemd,
        disruptionPolicy: DRAIN,
        drain,
      });
      expect(run.ops).to.deep.equal(['enable valitail.service', 'daemon-reload', 'restart valitail.service']);
      expect(calls).to.deep.equal([
        'cordon (after 2 systemd calls)',
        'evict (after 2 systemd calls)',
        'wait-ready (after 3 systemd calls)',
        'uncordon (after 3 systemd calls)',
      ]);
      expect(run.result.plan.commands).to.deep.equal([
        { unit: 'valitail.service', command: 'restart', drain: true },
      ]);
    });

    it('refuses a plan that drains when the apply has no access to the cluster, before writing anything', async () => {
      const before = readFileSync(join(root, 'etc/valitail/config.yaml'), 'utf8');
      const error = await applyTo(root, osc({ valitail: 'a: 2\n' }), images, {
        disruptionPolicy: DRAIN,
      }).catch((e: Error) => e);
      expect(String(error)).to.contain('drains the node');
      expect(readFileSync(join(root, 'etc/valitail/config.yaml'), 'utf8')).to.equal(before);
    });
  });
});
