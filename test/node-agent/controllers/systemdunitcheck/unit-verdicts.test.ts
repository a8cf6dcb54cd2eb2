/**
 * The SystemdUnitsReady check's verdicts and condition, against the strings of gardener v1.150.0
 * pkg/nodeagent/controller/systemdunitcheck/reconciler.go.
 */
import { expect } from 'chai';
import { decodeOperatingSystemConfig } from '../../../../api/index.js';
import { managedUnits } from '../../../../node-agent/controllers/systemdunitcheck/managed-units.js';
import {
  ALL_UNITS_HEALTHY_MESSAGE,
  systemdUnitsReadyCondition,
} from '../../../../node-agent/controllers/systemdunitcheck/systemd-units-ready-condition.js';
import { unitVerdicts } from '../../../../node-agent/controllers/systemdunitcheck/unit-verdicts.js';
import { parseUnitActivity, type UnitActivity } from '../../../../node-agent/systemd/unit-activity.js';
import type { UnitStatus } from '../../../../node-agent/systemd/unit-status.js';

type Fake = Partial<UnitStatus> & Partial<UnitActivity>;

function systemd(units: Record<string, Fake>) {
  return {
    unitStatus: (unit: string): Promise<UnitStatus> => {
      const u = units[unit];
      return Promise.resolve({
        loadState: u ? (u.loadState ?? 'loaded') : 'not-found',
        activeState: u?.activeState ?? 'inactive',
        subState: u?.subState ?? 'dead',
        type: u?.type ?? 'simple',
        invocationId: '',
        activeEnterTimestampMonotonic: 0,
        inactiveEnterTimestampMonotonic: 0,
        inactiveExitTimestampMonotonic: 0,
      });
    },
    unitActivity: (unit: string): Promise<UnitActivity> =>
      Promise.resolve({
        stateChangeTimestampMonotonic: units[unit]?.stateChangeTimestampMonotonic ?? 0,
        triggeredBy: units[unit]?.triggeredBy ?? [],
      }),
  };
}

const osc = (yaml: string) => {
  const decoded = decodeOperatingSystemConfig(
    `apiVersion: extensions.gardener.cloud/v1alpha1\nkind: OperatingSystemConfig\n${yaml}`,
  );
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
  return decoded.value;
};

const MINUTE_US = 60e6;
const FIVE_MINUTES_NS = 300e9;

describe('node-agent systemd unit check (v1.150.0 SystemdUnitsReady)', () => {
  it('takes the spec units, extension units on top, enabled by default only with content or drop-ins, sorted', () => {
    const units = managedUnits(
      osc(`spec:
  units:
  - {name: z.service, content: x}
  - {name: a.service}
  - {name: d.service, dropIns: [{name: 10.conf, content: q}]}
  - {name: e.service, enable: false, content: x}
  - {name: c.service, enable: true, content: x}
status:
  extensionUnits:
  - {name: c.service, enable: false}
  - {name: a.service}
  - {name: b.service, content: x}
  - {name: z.service}
`),
    );
    expect(units).to.deep.equal([
      { name: 'a.service', enabled: false },
      { name: 'b.service', enabled: true },
      { name: 'c.service', enabled: false },
      { name: 'd.service', enabled: true },
      { name: 'e.service', enabled: false },
      { name: 'z.service', enabled: true },
    ]);
  });

  it('gives each state its verdict, word for word', async () => {
    const now = 100 * MINUTE_US;
    const units = [
      'active-disabled',
      'active-ok',
      'activating-new',
      'activating-old',
      'auto-restart',
      'deactivating-old',
      'failed-disabled',
      'failed',
      'inactive-disabled',
      'inactive',
      'missing',
      'missing-disabled',
      'oneshot',
      'timer-triggered',
      'inactive-not-dead',
    ].map((n) => ({ name: `${n}.service`, enabled: !n.endsWith('-disabled') }));
    const verdicts = await unitVerdicts(units, {
      stuckThreshold: FIVE_MINUTES_NS,
      monotonicNow: () => now,
      systemd: systemd({
        'active-disabled.service': { activeState: 'active', subState: 'running' },
        'active-ok.service': { activeState: 'active', subState: 'running' },
        'activating-new.service': {
          activeState: 'activating',
          subState: 'start',
          stateChangeTimestampMonotonic: now - 90.7e6,
        },
        'activating-old.service': {
          activeState: 'activating',
          subState: 'start',
          stateChangeTimestampMonotonic: now - 5 * MINUTE_US,
        },
        'auto-restart.service': { activeState: 'activating', subState: 'auto-restart' },
        'deactivating-old.service': {
          activeState: 'deactivating',
          subState: 'stop-sigterm',
          stateChangeTimestampMonotonic: now - 62 * MINUTE_US - 3.2e6,
        },
        'failed-disabled.service': { activeState: 'failed', subState: 'failed' },
        'failed.service': { activeState: 'failed', subState: 'failed' },
        'inactive-disabled.service': {},
        'inactive.service': {},
        'oneshot.service': { type: 'oneshot' },
        'timer-triggered.service': { triggeredBy: ['logrotate.timer'] },
        'inactive-not-dead.service': { subState: 'exited', type: 'oneshot' },
      }),
    });
    expect(verdicts).to.deep.equal({
      unhealthy: [
        'active-disabled.service: active but should be disabled',
        'activating-old.service: stuck in activating for 5m0s',
        'deactivating-old.service: stuck in deactivating for 1h2m3s',
        'failed.service: failed',
        'inactive.service: inactive but should be enabled',
        'missing.service: not loaded',
        'inactive-not-dead.service: inactive but should be enabled',
      ],
      progressing: ['activating-new.service: activating for 1m30s'],
    });
  });

  it('writes False UnhealthyUnits, True ProgressingUnits or True AllUnitsHealthy, keeping the transition time', () => {
    const t0 = new Date('2026-01-01T00:00:00Z');
    const t1 = new Date('2026-01-01T00:01:00Z');
    const t2 = new Date('2026-01-01T00:02:00Z');
    const bad = systemdUnitsReadyCondition(
      { unhealthy: ['a: failed', 'b: not loaded'], progressing: ['c: x'] },
      t0,
    );
    expect(bad).to.deep.equal({
      type: 'SystemdUnitsReady',
      status: 'False',
      reason: 'UnhealthyUnits',
      message: 'a: failed; b: not loaded',
      lastTransitionTime: t0,
      lastHeartbeatTime: t0,
    });
    const progressing = systemdUnitsReadyCondition(
      { unhealthy: [], progressing: ['c: activating for 3s', 'd: deactivating for 0s'] },
      t1,
      bad,
    );
    expect(progressing).to.include({
      status: 'True',
      reason: 'ProgressingUnits',
      message: 'c: activating for 3s; d: deactivating for 0s',
      lastTransitionTime: t1,
    });
    const healthy = systemdUnitsReadyCondition({ unhealthy: [], progressing: [] }, t2, progressing);
    expect(healthy).to.deep.equal({
      type: 'SystemdUnitsReady',
      status: 'True',
      reason: 'AllUnitsHealthy',
      message: ALL_UNITS_HEALTHY_MESSAGE,
      lastTransitionTime: t1,
      lastHeartbeatTime: t2,
    });
    expect(ALL_UNITS_HEALTHY_MESSAGE).to.equal(
      'All systemd units from the operating system config are running as expected.',
    );
  });

  it("reads systemctl show's StateChangeTimestampMonotonic and TriggeredBy", () => {
    expect(
      parseUnitActivity('StateChangeTimestampMonotonic=123456789\nTriggeredBy=a.timer b.path\n'),
    ).to.deep.equal({ stateChangeTimestampMonotonic: 123456789, triggeredBy: ['a.timer', 'b.path'] });
    expect(parseUnitActivity('StateChangeTimestampMonotonic=0\nTriggeredBy=\n')).to.deep.equal({
      stateChangeTimestampMonotonic: 0,
      triggeredBy: [],
    });
  });
});
