/** Typos in the modelled parts of a Shoot, with the closest known name. */
import { expect } from 'chai';
import type * as z from 'zod';
import { StrictShoot } from '../../api/index.js';
import {
  type FieldNode,
  KUBELET_CONFIG_FIELDS,
  KUBERNETES_FIELDS,
  WORKER_FIELDS,
} from '../../api/schema/shoot-field-names.js';
import { closestName, unknownShootFields } from '../../api/schema/unknown-fields.js';

const keysOf = (schema: z.ZodType): string[] => {
  let s = schema as unknown as { shape?: Record<string, z.ZodType>; unwrap?: () => z.ZodType };
  while (!s.shape && s.unwrap) s = s.unwrap() as never;
  return Object.keys(s.shape ?? {});
};

describe('api: unknown fields of a Shoot', () => {
  it('knows every field our schemas model (upstream v1.91.4 names are a superset)', () => {
    const known = (node: FieldNode) => Object.keys(node.fields);
    expect(keysOf(StrictShoot.KubeletConfig)).to.include('maxPods');
    expect(keysOf(StrictShoot.Worker)).to.include('sysctls');
    expect(known(KUBELET_CONFIG_FIELDS)).to.include.members(keysOf(StrictShoot.KubeletConfig));
    expect(known(WORKER_FIELDS)).to.include.members(keysOf(StrictShoot.Worker));
    const kubernetes = (StrictShoot.Shoot.shape.spec as unknown as { shape: { kubernetes: z.ZodType } }).shape
      .kubernetes;
    expect(keysOf(kubernetes)).to.include('kubelet');
    expect(known(KUBERNETES_FIELDS)).to.include.members(keysOf(kubernetes));
  });

  it('suggests the closest name within a few edits, case counting little', () => {
    const names = Object.keys(KUBELET_CONFIG_FIELDS.fields);
    const table: [string, string | undefined][] = [
      ['maxPod', 'maxPods'],
      ['maxpods', 'maxPods'],
      ['maxPdos', 'maxPods'],
      ['evictonHard', 'evictionHard'],
      ['podPIDsLimit', 'podPidsLimit'],
      ['cpuManager', undefined],
      ['x', undefined],
    ];
    for (const [typo, suggestion] of table) expect(closestName(typo, names), typo).to.equal(suggestion);
  });

  it('finds typos in kubernetes, kubelet configs, workers and their lists; leaves unmodelled parts alone', () => {
    const shoot = {
      metadata: { whatever: true },
      spec: {
        kubernetes: {
          version: '1.30.5',
          kubeAPIServer: { anything: 1 },
          kubelet: { maxPod: 1, evictionHard: { memoryAvaliable: '1%' }, featureGates: { AnyGate: true } },
          kubeproxy: {},
        },
        provider: {
          type: 'local',
          workers: [
            {
              name: 'a',
              machine: { type: 'm', image: { name: 'x', providerConfig: { free: 1 } } },
              taints: [{ key: 'k', efect: 'NoSchedule' }],
              labels: { any: 'label' },
              sysctls: { 'a.b': '1' },
              kubernetes: { kubelet: { serializeImagePull: false } },
              zone: ['a'],
            },
          ],
        },
        networking: { anything: 1 },
      },
    };
    expect(unknownShootFields(shoot, ['spec', 'shoot'])).to.deep.equal([
      { field: 'spec.shoot.spec.kubernetes.kubelet.maxPod', suggestion: 'maxPods' },
      {
        field: 'spec.shoot.spec.kubernetes.kubelet.evictionHard.memoryAvaliable',
        suggestion: 'memoryAvailable',
      },
      { field: 'spec.shoot.spec.kubernetes.kubeproxy', suggestion: 'kubeProxy' },
      { field: 'spec.shoot.spec.provider.workers[0].taints[0].efect', suggestion: 'effect' },
      {
        field: 'spec.shoot.spec.provider.workers[0].kubernetes.kubelet.serializeImagePull',
        suggestion: 'serializeImagePulls',
      },
      { field: 'spec.shoot.spec.provider.workers[0].zone', suggestion: 'zones' },
    ]);
    expect(unknownShootFields(undefined)).to.deep.equal([]);
    expect(unknownShootFields({ spec: { provider: { workers: 'not a list' } } })).to.deep.equal([]);
  });
});
