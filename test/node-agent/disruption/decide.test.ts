import { expect } from 'chai';
import type { OperatingSystemConfig, OscFile, OscUnit } from '../../../api/index.js';
import { computePlan } from '../../../node-agent/planner/compute-plan.js';
import type { DisruptionPolicy } from '../../../node-agent/planner/disruption-policy.js';
import { computeLeastDisruptionPlan } from '../../../node-agent/planner/least-disruption-plan.js';
import type { Plan } from '../../../node-agent/planner/plan.js';
import '../support/harness.js';

const osc = (units: OscUnit[], files: OscFile[] = []): OperatingSystemConfig => ({
  apiVersion: 'extensions.gardener.cloud/v1alpha1',
  kind: 'OperatingSystemConfig',
  metadata: { name: 'osc' },
  spec: { type: 't', purpose: 'reconcile', units, files },
});
const file = (path: string, text: string): OscFile => ({
  path,
  content: { inline: { encoding: '', data: text } },
});

const KUBELET_UNIT =
  '[Unit]\nDescription=kubelet\n[Service]\nExecStart=/opt/bin/kubelet --config=/var/lib/kubelet/config/kubelet\n[Install]\nWantedBy=multi-user.target';
const VALITAIL_UNIT =
  '[Service]\nExecStart=/usr/bin/valitail -config.file=/var/lib/valitail/config\nExecReload=/bin/kill -HUP $MAINPID';
const kubelet = (content = KUBELET_UNIT): OscUnit => ({
  name: 'kubelet.service',
  command: 'start',
  enable: true,
  content,
  filePaths: ['/var/lib/kubelet/config/kubelet'],
});
const base = (over: { kubeletUnit?: string; files?: Record<string, string>; units?: OscUnit[] } = {}) =>
  osc(
    [kubelet(over.kubeletUnit), ...(over.units ?? [])],
    Object.entries({
      '/var/lib/kubelet/config/kubelet': 'maxPods: 110\n',
      '/etc/systemd/journald.conf': '[Journal]\nMaxFileSec=24h\n',
      '/etc/sysctl.d/99-k8s-general.conf': 'vm.max_map_count = 135217728\n',
      '/etc/motd': 'hello\n',
      ...over.files,
    }).map(([path, text]) => file(path, text)),
  );

const NO_POLICY: DisruptionPolicy = { paths: [], units: [] };
const commands = (plan: Plan) =>
  plan.commands.map((c) => `${c.command} ${c.unit}${c.ifUnitExists ? '?' : ''}`);
const decisions = (plan: Plan) =>
  (plan.disruption ?? []).map(
    (d) => `${d.unit}: ${d.action} ← ${d.causes.map((c) => `${c.source} (${c.why})`).join(', ')}`,
  );

describe('node-agent disruption: the least-disruption decision', () => {
  const cases: readonly {
    readonly name: string;
    readonly next: OperatingSystemConfig;
    readonly policy?: DisruptionPolicy;
    readonly commands: readonly string[];
    readonly decisions: readonly string[];
  }[] = [
    {
      name: 'kubelet config → kubelet restart',
      next: base({ files: { '/var/lib/kubelet/config/kubelet': 'maxPods: 120\n' } }),
      commands: ['restart kubelet.service'],
      decisions: [
        'kubelet.service: Restart ← /var/lib/kubelet/config/kubelet (the kubelet reads its config file only when it starts)',
      ],
    },
    {
      name: 'a comment in the kubelet unit → nothing restarts',
      next: base({ kubeletUnit: `# rendered by gardener\n${KUBELET_UNIT}` }),
      commands: [],
      decisions: ['kubelet.service: None ← unit file and drop-ins (no effective change)'],
    },
    {
      name: '[Install] only → re-enabled, not restarted',
      next: base({
        kubeletUnit: KUBELET_UNIT.replace('multi-user.target', 'multi-user.target kubernetes.target'),
      }),
      commands: [],
      decisions: ['kubelet.service: None ← unit file and drop-ins ([Install] only)'],
    },
    {
      name: 'Description only → daemon-reload',
      next: base({ kubeletUnit: KUBELET_UNIT.replace('Description=kubelet', 'Description=kubelet daemon') }),
      commands: [],
      decisions: ['kubelet.service: DaemonReload ← unit file and drop-ins ([Unit] Description)'],
    },
    {
      name: 'journald.conf (no unit lists it) → systemd-journald restart, if systemd has it',
      next: base({ files: { '/etc/systemd/journald.conf': '[Journal]\nMaxFileSec=12h\n' } }),
      commands: ['restart systemd-journald.service?'],
      decisions: [
        'systemd-journald.service: Restart ← /etc/systemd/journald.conf (journald reads its configuration only when it starts)',
      ],
    },
    {
      name: 'sysctl.d → systemd-sysctl restart',
      next: base({ files: { '/etc/sysctl.d/99-k8s-general.conf': 'vm.max_map_count = 1\n' } }),
      commands: ['restart systemd-sysctl.service?'],
      decisions: [
        'systemd-sysctl.service: Restart ← /etc/sysctl.d/99-k8s-general.conf (systemd-sysctl writes sysctl.d into the kernel when it runs)',
      ],
    },
    {
      name: 'a file no unit reads and no rule names → nothing',
      next: base({ files: { '/etc/motd': 'bye\n' } }),
      commands: [],
      decisions: [],
    },
    {
      name: "a unit's file no rule names → restart, as without a policy",
      next: base({
        units: [
          { name: 'valitail.service', content: VALITAIL_UNIT, filePaths: ['/var/lib/valitail/config'] },
        ],
        files: { '/var/lib/valitail/config': 'b' },
      }),
      commands: ['restart kubelet.service', 'restart valitail.service'],
      decisions: [
        'kubelet.service: Restart ← unit file and drop-ins ([Service] ExecStart)',
        'valitail.service: Restart ← /var/lib/valitail/config (no rule for it: restart, as without a policy)',
      ],
    },
    {
      name: 'a unit rule Reload on a unit with ExecReload= → reload',
      next: base({
        units: [
          { name: 'valitail.service', content: VALITAIL_UNIT, filePaths: ['/var/lib/valitail/config'] },
        ],
        files: { '/var/lib/valitail/config': 'b' },
      }),
      policy: {
        paths: [],
        units: [{ unit: 'valitail.service', action: 'Reload', reason: 'valitail re-reads on SIGHUP' }],
      },
      commands: ['restart kubelet.service', 'reload valitail.service'],
      decisions: [
        'kubelet.service: Restart ← unit file and drop-ins ([Service] ExecStart)',
        'valitail.service: Reload ← /var/lib/valitail/config (valitail re-reads on SIGHUP)',
      ],
    },
    {
      name: 'a Reload rule on a unit without ExecReload= → restart, so the change takes effect',
      next: base({ files: { '/var/lib/kubelet/config/kubelet': 'maxPods: 120\n' } }),
      policy: { paths: [], units: [{ unit: 'kubelet.service', action: 'Reload' }] },
      commands: ['restart kubelet.service'],
      decisions: [
        'kubelet.service: Restart ← /var/lib/kubelet/config/kubelet (policy for kubelet.service; the unit has no ExecReload=, so restart)',
      ],
    },
    {
      name: 'a path rule of the policy wins over the default',
      next: base({ files: { '/etc/systemd/journald.conf': '[Journal]\nMaxFileSec=12h\n' } }),
      policy: {
        paths: [{ path: '/etc/systemd/journald.conf', action: 'None', reason: 'next boot is soon enough' }],
        units: [],
      },
      commands: [],
      decisions: [],
    },
  ];

  const previousFor = (next: OperatingSystemConfig) =>
    next.spec.units?.some((u) => u.name === 'valitail.service')
      ? base({
          units: [
            { name: 'valitail.service', content: VALITAIL_UNIT, filePaths: ['/var/lib/valitail/config'] },
          ],
          files: { '/var/lib/valitail/config': 'a' },
          kubeletUnit: KUBELET_UNIT.replace('--config', '--v=2 --config'),
        })
      : base();

  for (const c of cases) {
    it(c.name, () => {
      const plan = computeLeastDisruptionPlan(previousFor(c.next), c.next, { policy: c.policy ?? NO_POLICY });
      expect(commands(plan)).to.deep.equal(c.commands);
      expect(decisions(plan)).to.deep.equal(c.decisions);
    });
  }

  it('writes and re-enables what it does not restart: only the unit commands differ from the plan without policy', () => {
    const previous = base();
    const next = base({ kubeletUnit: `# comment\n${KUBELET_UNIT}` });
    const upstream = computePlan(previous, next);
    const least = computeLeastDisruptionPlan(previous, next, { policy: NO_POLICY });
    expect(commands(upstream)).to.deep.equal(['restart kubelet.service']);
    const { commands: _a, disruption: _b, ...rest } = least;
    const { commands: _c, ...upstreamRest } = upstream;
    expect(rest).to.deep.equal(upstreamRest);
    expect(least.enable).to.deep.equal(['kubelet.service']);
    expect(least.daemonReload).to.equal(true);
  });

  it('restarts everything on a first apply, and adds the units rules name', () => {
    const plan = computeLeastDisruptionPlan(undefined, base(), { policy: NO_POLICY });
    expect(commands(plan)).to.deep.equal([
      'restart kubelet.service',
      'restart systemd-journald.service?',
      'restart systemd-sysctl.service?',
    ]);
  });

  it('leaves stops and removals as the plan has them', () => {
    const previous = base({ units: [{ name: 'old.service', content: '[Service]\nExecStart=/bin/true' }] });
    const next = base({
      units: [{ name: 'off.service', enable: false, content: '[Service]\nExecStart=/bin/true' }],
    });
    const plan = computeLeastDisruptionPlan(previous, next, { policy: NO_POLICY });
    expect(commands(plan)).to.deep.equal(['stop off.service']);
    expect(plan.units.delete.map((u) => u.name)).to.deep.equal(['old.service']);
  });
});
