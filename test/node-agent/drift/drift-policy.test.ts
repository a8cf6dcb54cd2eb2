import { expect } from 'chai';
import { parseYaml, ValidationError } from '../../../api/index.js';
import { decodeDisruptionPolicy } from '../../../node-agent/planner/disruption-policy-decode.js';
import type { Drift } from '../../../node-agent/planner/drift.js';
import { type DriftRule, decideDrift } from '../../../node-agent/planner/drift-policy.js';

const drift = (d: Partial<Drift>): Drift => ({
  object: 'file',
  kind: 'content',
  path: '/etc/a',
  origin: 'rendered',
  expected: 'x',
  actual: 'y',
  ...d,
});

const RULES: DriftRule[] = [
  { path: '/etc/ssh/**', action: 'Adopt', reason: 'the security team hardens sshd' },
  { unit: 'valitail.service', kinds: ['not-running'], action: 'Repair' },
  { path: '/var/lib/kubelet/config/kubelet', kinds: ['mode'], action: 'Report' },
];

describe('node-agent drift: the policy decides per path or unit', () => {
  const table: [string, Partial<Drift>, readonly DriftRule[], string][] = [
    ['a rendered file, no rules', {}, [], 'Repair'],
    ["the OS extension's file", { origin: 'extension' }, [], 'Report'],
    ['an extra drop-in nothing of ours wrote', { kind: 'extra-drop-in', origin: 'node' }, [], 'Report'],
    [
      'a unit that does not run',
      { object: 'unit', kind: 'not-running', path: undefined, unit: 'kubelet.service' },
      [],
      'Report',
    ],
    ['a path rule (glob)', { path: '/etc/ssh/sshd_config' }, RULES, 'Adopt'],
    [
      'a unit rule with its kind',
      { object: 'unit', kind: 'not-running', path: undefined, unit: 'valitail.service' },
      RULES,
      'Repair',
    ],
    [
      'a unit rule, other kind: the default',
      { object: 'unit', kind: 'enablement', path: undefined, unit: 'valitail.service' },
      RULES,
      'Repair',
    ],
    ['a path rule for one kind', { path: '/var/lib/kubelet/config/kubelet', kind: 'mode' }, RULES, 'Report'],
    [
      'the same path, another kind',
      { path: '/var/lib/kubelet/config/kubelet', kind: 'content' },
      RULES,
      'Repair',
    ],
    [
      "a rule repairs the extension's file",
      { origin: 'extension', path: '/etc/a' },
      [{ path: '/etc/a', action: 'Repair' }],
      'Repair',
    ],
  ];
  for (const [name, d, rules, action] of table)
    it(`${name}: ${action}`, () => {
      expect(decideDrift(drift(d), rules).action).to.equal(action);
    });

  it('says why: the rule, else the default', () => {
    expect(decideDrift(drift({ path: '/etc/ssh/sshd_config' }), RULES).why).to.equal(
      'the security team hardens sshd',
    );
    expect(decideDrift(drift({}), []).why).to.equal('default: rendered by gardenlet');
  });

  it('travels in the DisruptionPolicy file, checked at the boundary', () => {
    const policy = decodeDisruptionPolicy(
      parseYaml(`apiVersion: node-configuration.gardener.cloud/v1alpha1
kind: DisruptionPolicy
drift:
- path: /etc/ssh/**
  action: Adopt
- unit: valitail.service
  kinds: [not-running]
  action: Repair
`),
    );
    expect(policy.drift).to.deep.equal([
      { path: '/etc/ssh/**', action: 'Adopt' },
      { unit: 'valitail.service', kinds: ['not-running'], action: 'Repair' },
    ]);
    const bad = () =>
      decodeDisruptionPolicy(
        parseYaml(`apiVersion: node-configuration.gardener.cloud/v1alpha1
kind: DisruptionPolicy
drift:
- path: /etc/a
  unit: a.service
  action: Fix
  kinds: [colour]
`),
      );
    expect(bad).to.throw(
      ValidationError,
      /drift\[0\]\.action.*drift\[0\]\.kinds\[0\]|exactly one of path and unit/s,
    );
  });
});
