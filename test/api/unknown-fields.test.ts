/** Typos in every input, at every depth, with the closest known name; Gardener's fields are known. */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import * as z from 'zod';
import { parseYaml, StrictShoot } from '../../api/index.js';
import { type FieldTree, gardenerType } from '../../api/schema/field-tree.js';
import { closestName, unknownClusterFields, unknownFields } from '../../api/schema/unknown-fields.js';
import { zodFieldTree } from '../../api/schema/zod-field-tree.js';
import { RenderValuesSchema } from '../../charts/values/render-values.js';
import { EXAMPLE_CLUSTER } from '../../cli/render-command.js';

const fieldsOf = (tree: FieldTree | undefined): Readonly<Record<string, FieldTree>> => {
  if (tree && typeof tree === 'object' && 'fields' in tree) return tree.fields;
  if (tree && typeof tree === 'object' && 'items' in tree) return fieldsOf(tree.items);
  throw new Error(`not an object: ${JSON.stringify(tree)}`);
};

/** Every field path our zod schema models, `a.b[].c`. */
function paths(tree: FieldTree, prefix = ''): string[] {
  if (tree === 'leaf' || tree === 'raw') return [];
  if ('items' in tree) return paths(tree.items, `${prefix}[]`);
  if ('values' in tree) return paths(tree.values, `${prefix}{}`);
  return Object.entries(tree.fields).flatMap(([k, v]) => [`${prefix}.${k}`, ...paths(v, `${prefix}.${k}`)]);
}

describe('api: unknown fields', () => {
  /** A Shoot with every path our schema models present, by walking our tree into a value. */
  function modelledShoot(): unknown {
    return (function sample(tree: FieldTree): unknown {
      if (tree === 'leaf' || tree === 'raw') return 'x';
      if ('items' in tree) return [sample(tree.items)];
      if ('values' in tree) return { key: sample(tree.values) };
      return Object.fromEntries(Object.entries(tree.fields).map(([k, v]) => [k, sample(v)]));
    })(zodFieldTree(StrictShoot.Shoot));
  }

  it("v1.150.0's Go types know every field our Shoot schema models but the removed systemReserved", () => {
    expect(paths(zodFieldTree(StrictShoot.Shoot))).to.include(
      '.spec.provider.workers[].kubernetes.kubelet.maxPods',
    );
    // tombstoned in gardener pkg/apis v1.150.0 core/v1beta1/types_shoot.go (KubeletConfig)
    expect(unknownFields(modelledShoot(), gardenerType('Shoot', 'v1.150.0'))).to.deep.equal([
      { field: 'spec.kubernetes.kubelet.systemReserved' },
      { field: 'spec.provider.workers[0].kubernetes.kubelet.systemReserved' },
    ]);
  });

  it("v1.91.4's Go types lack only the fields our schema reads for the v1.150.0 contract", () => {
    const v150Kubelet = [
      'maxParallelImagePulls',
      'singleProcessOOMKill',
      'imagePullCredentialsVerificationPolicy',
      'preloadedImagesVerificationAllowlist',
    ];
    expect(unknownFields(modelledShoot(), gardenerType('Shoot', 'v1.91.4'))).to.deep.equal([
      ...v150Kubelet.map((f) => ({ field: `spec.kubernetes.kubelet.${f}` })),
      ...v150Kubelet.map((f) => ({ field: `spec.provider.workers[0].kubernetes.kubelet.${f}` })),
      { field: 'spec.provider.workers[0].updateStrategy' },
      { field: 'status.credentials.rotation.certificateAuthorities.pendingWorkersRollouts' },
      { field: 'status.credentials.rotation.serviceAccountKey.pendingWorkersRollouts' },
    ]);
  });

  it("judges a Cluster by its contract's Gardener: updateStrategy is unknown to v1.91.4 only", () => {
    const cluster = {
      spec: {
        shoot: { spec: { provider: { workers: [{ name: 'a', updateStrategy: 'AutoInPlaceUpdate' }] } } },
      },
    };
    expect(unknownClusterFields(cluster, 'v1.91.4')).to.deep.equal([
      { field: 'spec.shoot.spec.provider.workers[0].updateStrategy' },
    ]);
    expect(unknownClusterFields(cluster, 'v1.150.0')).to.deep.equal([]);
  });

  it('suggests the closest name within a few edits, case counting little', () => {
    const names = Object.keys(fieldsOf(gardenerType('KubeletConfig')));
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

  it('finds typos at every depth of the Cluster, its Shoot, CloudProfile and Seed', () => {
    const cluster = {
      apiVersion: 'extensions.gardener.cloud/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'c', labelz: {} },
      spec: {
        status: { technicalID: 'x' },
        cloudProfile: { spec: { machineTypes: [{ name: 'm', cpus: '2' }] } },
        seed: { spec: { ingress: { domian: 'x' } } },
        shoot: {
          metadata: { name: 's', annotations: { any: 'thing' } },
          spec: {
            porvider: { type: 'local' },
            networkin: {},
            systemComponents: { nodeLocalDns: { enabled: true } },
            kubernetes: {
              version: '1.30.5',
              kubeAPIServer: { enableAnonymousAuthentication: false, auditConfg: {} },
              kubelet: {
                maxPod: 1,
                evictionHard: { memoryAvaliable: '1%' },
                featureGates: { AnyGate: true },
              },
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
                  zone: ['a'],
                },
              ],
            },
          },
          status: { technicalID: 'shoot--a--b', lastOperation: { state: 'Succeeded' } },
        },
      },
    };
    expect(unknownClusterFields(cluster)).to.deep.equal([
      { field: 'metadata.labelz', suggestion: 'labels' },
      { field: 'spec.status' },
      { field: 'spec.cloudProfile.spec.machineTypes[0].cpus', suggestion: 'cpu' },
      { field: 'spec.seed.spec.ingress.domian', suggestion: 'domain' },
      { field: 'spec.shoot.spec.porvider', suggestion: 'provider' },
      { field: 'spec.shoot.spec.networkin', suggestion: 'networking' },
      { field: 'spec.shoot.spec.systemComponents.nodeLocalDns', suggestion: 'nodeLocalDNS' },
      { field: 'spec.shoot.spec.kubernetes.kubeAPIServer.auditConfg', suggestion: 'auditConfig' },
      { field: 'spec.shoot.spec.kubernetes.kubelet.maxPod', suggestion: 'maxPods' },
      {
        field: 'spec.shoot.spec.kubernetes.kubelet.evictionHard.memoryAvaliable',
        suggestion: 'memoryAvailable',
      },
      { field: 'spec.shoot.spec.provider.workers[0].taints[0].efect', suggestion: 'effect' },
      { field: 'spec.shoot.spec.provider.workers[0].zone', suggestion: 'zones' },
    ]);
  });

  it('the shipped example has no unknown field', () => {
    expect(unknownClusterFields(parseYaml(readFileSync(EXAMPLE_CLUSTER, 'utf8')))).to.deep.equal([]);
  });

  it('our own files: the tree of a zod schema, optional, defaulted, piped, records and lists', () => {
    const schema = z.strictObject({
      a: z.strictObject({ b: z.number() }).optional(),
      c: z.preprocess((v) => v, z.strictObject({ d: z.string() })),
      e: z.array(z.strictObject({ f: z.boolean() })).default([]),
      g: z.record(z.string(), z.string()),
    });
    expect(
      unknownFields(
        { a: { bb: 1 }, c: { d: '', xyz: 1 }, e: [{ f: true, ff: 1 }], g: { k: 'v' } },
        zodFieldTree(schema),
      ),
    ).to.deep.equal([
      { field: 'a.bb', suggestion: 'b' },
      { field: 'c.xyz' },
      { field: 'e[0].ff', suggestion: 'f' },
    ]);
    expect(unknownFields({ caBundles: { clustr: 'x' } }, zodFieldTree(RenderValuesSchema))).to.deep.equal([
      { field: 'caBundles.clustr', suggestion: 'cluster' },
    ]);
  });

  it('leaves values of the wrong type to the decoder', () => {
    expect(unknownClusterFields(undefined)).to.deep.equal([]);
    expect(
      unknownClusterFields({ spec: { shoot: { spec: { provider: { workers: 'not a list' } } } } }),
    ).to.deep.equal([]);
  });
});
