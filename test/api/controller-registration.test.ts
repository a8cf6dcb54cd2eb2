/**
 * ControllerRegistration and ControllerDeployment as gardener-apiserver v1.91 validates them
 * (pkg/apis/core/validation), one rule a row.
 */
import { expect } from 'chai';
import { validateGardenerCoreObject } from '../../api/index.js';

const registration = (spec: Record<string, unknown>, name = 'gardener-osc') => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'ControllerRegistration',
  metadata: { name },
  spec,
});
const deployment = (extra: Record<string, unknown>) => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'ControllerDeployment',
  metadata: { name: 'gardener-osc' },
  type: 'helm',
  providerConfig: { chart: Buffer.from('chart').toString('base64'), values: {} },
  ...extra,
});
const osc = (type: string, extra: Record<string, unknown> = {}) => ({
  kind: 'OperatingSystemConfig',
  type,
  ...extra,
});

describe('ControllerRegistration and ControllerDeployment validation (gardener-apiserver v1.91)', () => {
  const cases: [string, unknown, string[]][] = [
    [
      'a valid registration',
      registration({
        resources: [osc('gardenlinux')],
        deployment: { policy: 'AlwaysExceptNoShoots', deploymentRefs: [{ name: 'gardener-osc' }] },
      }),
      [],
    ],
    ['no resources at all', registration({ deployment: { policy: 'Always' } }), []],
    ['a name that is no DNS label', registration({}, 'Gardener_OSC'), ['Invalid metadata.name']],
    [
      'an unsupported kind',
      registration({ resources: [{ kind: 'Shoot', type: 'x' }] }),
      ['NotSupported spec.resources[0].kind'],
    ],
    ['an empty type', registration({ resources: [osc('')] }), ['Required spec.resources[0].type']],
    ['a kind/type twice', registration({ resources: [osc('a'), osc('a')] }), ['Duplicate spec.resources[1]']],
    [
      'globallyEnabled on a non-Extension kind',
      registration({ resources: [osc('a', { globallyEnabled: true })] }),
      ['Forbidden spec.resources[0].globallyEnabled'],
    ],
    [
      'an unknown lifecycle strategy on an Extension',
      registration({ resources: [{ kind: 'Extension', type: 'a', lifecycle: { reconcile: 'Whenever' } }] }),
      ['NotSupported spec.resources[0].lifecycle.reconcile'],
    ],
    [
      'an unknown policy',
      registration({ deployment: { policy: 'Sometimes' } }),
      ['NotSupported spec.deployment.policy'],
    ],
    [
      'a seed selector with a primary resource',
      registration({ resources: [osc('a')], deployment: { seedSelector: { matchLabels: { a: 'b' } } } }),
      ['Forbidden spec.deployment.seedSelector'],
    ],
    [
      'a seed selector when nothing is primary',
      registration({
        resources: [osc('a', { primary: false })],
        deployment: { seedSelector: { matchLabels: { a: 'b' } } },
      }),
      [],
    ],
    [
      'two deployment refs',
      registration({ deployment: { deploymentRefs: [{ name: 'a' }, { name: 'b' }] } }),
      ['Forbidden spec.deployment.deploymentRefs'],
    ],
    [
      'an empty deployment ref',
      registration({ deployment: { deploymentRefs: [{ name: '' }] } }),
      ['Required spec.deployment.deploymentRefs[0].name'],
    ],
    ['an unknown field', registration({ resources: [], rollout: true }), ['Forbidden spec']],
    ['a valid helm deployment', deployment({}), []],
    ['a deployment without type', deployment({ type: '' }), ['Invalid type']],
    [
      'a helm chart that is no base64',
      deployment({ providerConfig: { chart: 'not base64!' } }),
      ['Invalid providerConfig.chart'],
    ],
    ['another type, not looked into', deployment({ type: 'oci', providerConfig: { ref: 'x' } }), []],
    ['another kind', { kind: 'Seed' }, ['NotSupported kind']],
  ];
  for (const [what, object, expected] of cases) {
    it(what, () => {
      expect(validateGardenerCoreObject(object).map((e) => `${e.type} ${e.field}`)).to.deep.equal(expected);
    });
  }
});
