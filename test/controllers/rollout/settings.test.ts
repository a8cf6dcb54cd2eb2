/** The rollout settings of one shoot: the configuration, overridden per Cluster; the operator's action. */
import { expect } from 'chai';
import { actionRequest, effectiveSettings, maxPerWave } from '../../../controllers/rollout/settings.js';
import { decodeControllerManagerConfiguration, RolloutSettingsSchema } from '../../../seed/manager/config.js';

const BASE = RolloutSettingsSchema.parse({});
const A = (name: string) => `rollout.node-configuration.gardener.cloud/${name}`;

describe('rollout settings', () => {
  it('defaults: gate on, canary 1, growth 2, 25 % per wave, settle 60 s, no failure tolerated, stall after 15 min', () => {
    expect(BASE).to.deep.equal({
      gate: true,
      canary: 1,
      growth: 2,
      maxPerWave: { percent: 25 },
      settleTime: 60_000,
      failuresTolerated: 0,
      checkInterval: 5_000,
      waveTimeout: 900_000,
      stalledNodes: 'skipUnhealthy',
    });
  });

  it('the configuration file takes gate: off (YAML reads a bare off as false), numbers and percentages', () => {
    const decoded = decodeControllerManagerConfiguration({
      apiVersion: 'node-configuration.gardener.cloud/v1alpha1',
      kind: 'ControllerManagerConfiguration',
      clusterSelector: { matchLabels: { a: 'b' } },
      controllers: { rollout: { gate: false, maxPerWave: 10, settleTime: '2m' } },
    });
    expect(decoded.ok && decoded.value.controllers.rollout).to.include({
      gate: false,
      maxPerWave: 10,
      settleTime: 120_000,
    });
    const bad = decodeControllerManagerConfiguration({
      apiVersion: 'node-configuration.gardener.cloud/v1alpha1',
      kind: 'ControllerManagerConfiguration',
      clusterSelector: { matchLabels: { a: 'b' } },
      controllers: { rollout: { maxPerWave: '150%', canary: 0 } },
    });
    expect(bad.ok ? [] : bad.errors.map((e) => e.field).sort()).to.deep.equal([
      'controllers.rollout.canary',
      'controllers.rollout.maxPerWave',
    ]);
  });

  const overrides: [string, Record<string, string>, Partial<typeof BASE>, string[]][] = [
    ['none', {}, {}, []],
    ['gate off', { [A('gate')]: 'off' }, { gate: false }, []],
    [
      'every field',
      {
        [A('canary')]: '3',
        [A('growth')]: '1.5',
        [A('max-per-wave')]: '40%',
        [A('settle-time')]: '90s',
        [A('failures-tolerated')]: '2',
      },
      { canary: 3, growth: 1.5, maxPerWave: { percent: 40 }, settleTime: 90_000, failuresTolerated: 2 },
      [],
    ],
    ['a number of nodes per wave', { [A('max-per-wave')]: '10' }, { maxPerWave: 10 }, []],
    [
      'typos are named and leave the configured value (the gate stays on)',
      { [A('gate')]: 'of', [A('canary')]: 'one', [A('settle-time')]: '60', [A('max-per-wave')]: '0' },
      {},
      [
        `${A('gate')}: "of" is not`,
        `${A('canary')}: "one" is not a whole number`,
        `${A('max-per-wave')}: "0" is not a number of nodes, or a percentage from 1% to 100%`,
        `${A('settle-time')}: "60" is not`,
      ],
    ],
  ];
  for (const [name, annotations, want, problems] of overrides) {
    it(`per Cluster: ${name}`, () => {
      const got = effectiveSettings(BASE, annotations);
      expect(got.settings).to.deep.equal({ ...BASE, ...want });
      expect(got.problems).to.have.length(problems.length);
      for (const [i, p] of problems.entries()) expect(got.problems[i]).to.contain(p);
    });
  }

  it('the largest wave of a pool', () => {
    expect(maxPerWave({ percent: 25 }, 100)).to.equal(25);
    expect(maxPerWave({ percent: 25 }, 3)).to.equal(1);
    expect(maxPerWave({ percent: 10 }, 0)).to.equal(1);
    expect(maxPerWave(7, 3)).to.equal(7);
  });

  it("the operator's action, for every pool or some", () => {
    expect(actionRequest(undefined)).to.equal(undefined);
    expect(actionRequest({ [A('action')]: 'resume' })).to.deep.equal({ action: 'resume', text: 'resume' });
    expect(actionRequest({ [A('action')]: 'unguarded:a,b-2' })).to.deep.equal({
      action: 'unguarded',
      pools: ['a', 'b-2'],
      text: 'unguarded:a,b-2',
    });
    expect(actionRequest({ [A('action')]: 'rollback' })).to.deep.equal({
      problem: `${A('action')}: "rollback" is not "resume" or "unguarded", optionally followed by ":pool,pool"`,
      text: 'rollback',
    });
  });
});
