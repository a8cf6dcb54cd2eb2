/**
 * The agent's side of the rollout gate: when it may apply (the permission), how it judges an apply
 * (units after the settle time, health checks) and how it names a failure.
 */
import { expect } from 'chai';
import {
  APPLY_REPORT_ANNOTATION,
  applyReportAnnotations,
  OscSecretError,
  PERMITTED_CHECKSUM_ANNOTATION,
  readApplyReport,
  readPermission,
  ValidationError,
} from '../../../../api/index.js';
import { MemorySystemd } from '../../../../hack/node-agent-doubles/memory-systemd.js';
import { ApplyError } from '../../../../node-agent/applier/apply-osc.js';
import { gateDecision } from '../../../../node-agent/controllers/operatingsystemconfig/apply-gate.js';
import {
  failureMessage,
  failureReason,
} from '../../../../node-agent/controllers/operatingsystemconfig/apply-report.js';
import {
  unitProblem,
  verifyApply,
} from '../../../../node-agent/controllers/operatingsystemconfig/verify-apply.js';
import type { UnitStatus } from '../../../../node-agent/systemd/unit-status.js';
import { FakeClock } from '../../../../runtime/clock.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('node agent rollout gate: the permission', () => {
  const cases: [string, Record<string, string> | undefined, string | undefined, string][] = [
    ['no annotation: as upstream', undefined, A, 'apply ungated'],
    ['no annotation, no checksum: as upstream', {}, undefined, 'apply ungated'],
    ['permitted the secret checksum', { [PERMITTED_CHECKSUM_ANNOTATION]: A }, A, 'apply gated'],
    [
      'permitted another checksum',
      { [PERMITTED_CHECKSUM_ANNOTATION]: B },
      A,
      'hold: the seed permits bbbbbbbbbbbb, the OSC secret holds aaaaaaaaaaaa',
    ],
    [
      'a permission but no checksum to compare',
      { [PERMITTED_CHECKSUM_ANNOTATION]: A },
      undefined,
      'hold: the OSC secret carries no checksum/data-script to compare with',
    ],
    [
      'not a checksum',
      { [PERMITTED_CHECKSUM_ANNOTATION]: 'yes' },
      A,
      `hold: ${PERMITTED_CHECKSUM_ANNOTATION} is not a checksum: "yes"`,
    ],
    [
      'upper case is no checksum gardenlet writes',
      { [PERMITTED_CHECKSUM_ANNOTATION]: A.toUpperCase() },
      A,
      `hold: ${PERMITTED_CHECKSUM_ANNOTATION} is not a checksum: "${A.toUpperCase()}"`,
    ],
    [
      'empty is no checksum',
      { [PERMITTED_CHECKSUM_ANNOTATION]: '' },
      A,
      `hold: ${PERMITTED_CHECKSUM_ANNOTATION} is not a checksum: ""`,
    ],
  ];
  for (const [name, annotations, checksum, want] of cases) {
    it(name, () => {
      const d = gateDecision(readPermission(annotations), checksum);
      const got = d.kind === 'apply' ? `apply ${d.gated ? 'gated' : 'ungated'}` : `hold: ${d.reason}`;
      expect(got).to.equal(want);
    });
  }
});

describe('node agent rollout gate: the report', () => {
  it('round-trips through the Node annotations, tolerant of what it cannot read', () => {
    const written = applyReportAnnotations(
      { checksum: A, result: 'Failed', reason: 'UnitNotActive', message: 'x'.repeat(2000) },
      new Date('2026-03-01T10:00:00Z'),
    );
    expect(Object.keys(written).sort()).to.deep.equal(Object.values(APPLY_REPORT_ANNOTATION).sort());
    const read = readApplyReport(written)!;
    expect(read).to.include({ checksum: A, result: 'Failed', reason: 'UnitNotActive' });
    expect(read.message).to.have.length(1024);
    expect(read.time).to.equal(Date.parse('2026-03-01T10:00:00Z'));
    expect(readApplyReport(undefined)).to.equal(undefined);
    expect(readApplyReport({ ...written, [APPLY_REPORT_ANNOTATION.result]: 'Maybe' })).to.equal(undefined);
    expect(readApplyReport({ ...written, [APPLY_REPORT_ANNOTATION.time]: 'yesterday' })?.time).to.equal(
      undefined,
    );
  });

  it('names why an apply failed: a unit command, a bad OSC, any other step', () => {
    const unit = new ApplyError([{ step: 'restart kubelet.service', error: new Error('Job failed') }]);
    const file = new ApplyError([{ step: 'write-file /etc/x', error: new Error('EACCES') }]);
    expect(failureReason(unit)).to.equal('UnitCommandFailed');
    expect(failureMessage(unit)).to.equal('restart kubelet.service: Job failed');
    expect(failureReason(file)).to.equal('ApplyFailed');
    expect(failureReason(new ValidationError('OperatingSystemConfig', []))).to.equal('InvalidConfiguration');
    expect(failureReason(new OscSecretError('no osc.yaml key found in OSC secret'))).to.equal(
      'InvalidConfiguration',
    );
    expect(failureReason(new Error('image pull failed'))).to.equal('ApplyFailed');
    expect(failureMessage(new Error('invalid x:\n  - a: b\n'))).to.equal('invalid x: - a: b');
  });
});

describe('node agent rollout gate: verifying an apply', () => {
  const status = (o: Partial<UnitStatus>): UnitStatus => ({
    loadState: 'loaded',
    activeState: 'active',
    subState: 'running',
    invocationId: 'f'.repeat(32),
    activeEnterTimestampMonotonic: 1,
    inactiveEnterTimestampMonotonic: 0,
    inactiveExitTimestampMonotonic: 1,
    ...o,
  });

  const units: [string, Partial<UnitStatus>, string | undefined][] = [
    ['running', {}, undefined],
    ['reloading', { activeState: 'reloading', subState: 'reload' }, undefined],
    ['a oneshot that ran', { type: 'oneshot', activeState: 'inactive', subState: 'dead' }, undefined],
    [
      'a oneshot that failed',
      { type: 'oneshot', activeState: 'failed', subState: 'failed' },
      'u is failed (failed)',
    ],
    [
      'a service that ran to success (a timer runs it)',
      {
        type: 'simple',
        activeState: 'inactive',
        subState: 'dead',
        result: 'success',
        execMainCode: 1,
        execMainStatus: 0,
      },
      undefined,
    ],
    [
      'a service somebody stopped (SIGTERM: CLD_KILLED), systemd result success',
      { activeState: 'inactive', subState: 'dead', result: 'success', execMainCode: 2, execMainStatus: 15 },
      'u is inactive (dead)',
    ],
    [
      'a service that exited with an error',
      { type: 'simple', activeState: 'inactive', subState: 'dead', result: 'exit-code' },
      'u is inactive (dead)',
    ],
    [
      'never started since boot',
      { activeState: 'inactive', subState: 'dead', result: 'success', inactiveExitTimestampMonotonic: 0 },
      'u is inactive (dead)',
    ],
    [
      'a service that exited, how unknown',
      { type: 'simple', activeState: 'inactive', subState: 'dead' },
      'u is inactive (dead)',
    ],
    [
      'failed, with the result success of an earlier run',
      { activeState: 'failed', subState: 'failed', result: 'success' },
      'u is failed (failed)',
    ],
    [
      'restarting in a loop',
      { activeState: 'activating', subState: 'auto-restart' },
      'u is activating (auto-restart)',
    ],
    ['failed', { activeState: 'failed', subState: 'failed' }, 'u is failed (failed)'],
    [
      'a service that ran and systemd unloaded (gardener-user.service, judged again after a restart)',
      {
        type: 'simple',
        activeState: 'inactive',
        subState: 'dead',
        result: 'success',
        invocationId: '',
        inactiveExitTimestampMonotonic: 0,
      },
      undefined,
    ],
    [
      'a script run to exit 0',
      { activeState: 'inactive', subState: 'dead', result: 'success', execMainCode: 1, execMainStatus: 0 },
      undefined,
    ],
    [
      'between two runs of a Restart=always unit whose last run exited 0 (sshd-ensurer.service)',
      {
        activeState: 'activating',
        subState: 'auto-restart',
        result: 'success',
        execMainCode: 1,
        execMainStatus: 0,
      },
      undefined,
    ],
    [
      'in a crash loop: its last run exited 1',
      {
        activeState: 'activating',
        subState: 'auto-restart',
        result: 'exit-code',
        execMainCode: 1,
        execMainStatus: 1,
      },
      'u is activating (auto-restart)',
    ],
  ];
  for (const [name, o, want] of units) {
    it(`a unit: ${name}`, () => expect(unitProblem('u', status(o))).to.equal(want));
  }

  it('waits the settle time, then judges the restarted units, then the health checks', async () => {
    const clock = new FakeClock();
    const systemd = new MemorySystemd();
    await systemd.restart('a.service');
    const signal = new AbortController().signal;
    let done = false;
    const verdict = verifyApply({
      units: ['a.service'],
      systemd,
      probes: [],
      settleMs: 5000,
      signal,
      clock,
    }).then((v) => {
      done = true;
      return v;
    });
    await clock.advance(4999);
    expect(done).to.equal(false);
    await clock.advance(1);
    expect(await verdict).to.deep.equal({
      ok: true,
      message: 'applied; 1 restarted unit(s) active after 5s',
    });

    // started, then stopped by somebody: still loaded, with the run's InvocationID
    await systemd.restart('b.service');
    await systemd.stop('b.service');
    const inactive = await verifyApply({ units: ['b.service'], systemd, probes: [], settleMs: 0, signal });
    expect(inactive).to.deep.equal({
      ok: false,
      reason: 'UnitNotActive',
      message: 'b.service is inactive (dead), 0s after the apply restarted it',
    });
    const unhealthy = await verifyApply({
      units: ['a.service'],
      systemd,
      probes: [
        { name: 'kubelet', check: () => Promise.reject(new Error('connection refused')) },
        { name: 'containerd', check: () => Promise.resolve() },
      ],
      settleMs: 0,
      signal,
    });
    expect(unhealthy).to.deep.equal({
      ok: false,
      reason: 'HealthCheckFailed',
      message: 'health check failed 0s after the apply: kubelet: connection refused',
    });
  });
});
