import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { type Cluster, decodeCluster, parseRfc3339, parseYaml } from '../../../api/index.js';
import { renderNodeConfiguration } from '../../../charts/node-configuration.js';
import { RenderValuesSchema } from '../../../charts/values/render-values.js';
import {
  applyBody,
  objectSetsFromManagedResources,
  type PruneInput,
  pruneDecision,
  refOf,
  type SetObject,
  setFieldManager,
  setLabelKey,
  validateObjectSet,
} from '../../../seed/direct-apply/index.js';

const EXAMPLES = join(import.meta.dirname, '../../../examples');
const IGNORE = { 'resources.gardener.cloud/mode': 'Ignore' };
const A = 'set.node-configuration.gardener.cloud/shoot-cloud-config-execution';
const B = 'set.node-configuration.gardener.cloud/shoot-gardener-node-agent';

function exampleCluster(): Cluster {
  const decoded = decodeCluster(parseYaml(readFileSync(join(EXAMPLES, 'cluster.yaml'), 'utf8')));
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
  return decoded.value;
}

const base: PruneInput = {
  set: 'shoot-cloud-config-execution',
  desired: false,
  ignoredInSet: false,
  heldElsewhere: false,
};

describe('direct apply: object sets and prune decisions (issue #6)', () => {
  it('keeps what the set still renders', () => {
    expect(pruneDecision({ ...base, desired: true, labels: { [A]: 'true' } })).to.deep.equal({
      action: 'keep',
    });
  });

  it('deletes what only this set held', () => {
    expect(pruneDecision({ ...base, labels: { [A]: 'true' } })).to.deep.equal({ action: 'delete' });
    expect(
      pruneDecision({ ...base, labels: { [A]: 'true', [B]: 'false' } }),
      'a label that is not "true" is no membership',
    ).to.deep.equal({ action: 'delete' });
  });

  it('only drops the membership (empty intent) of an object another set holds', () => {
    const d = pruneDecision({ ...base, labels: { [A]: 'true', [B]: 'true' } });
    expect(d).to.include({ action: 'release', how: 'unapply' });
    expect(d.action === 'release' && d.reason).to.contain('shoot-gardener-node-agent');
    expect(
      pruneDecision({ ...base, labels: { [A]: 'true', [B]: 'true' }, annotations: IGNORE }),
      'shared wins over Ignore: the other set defines the object from now on',
    ).to.include({ action: 'release', how: 'unapply' });
  });

  it('keeps Ignore-mode objects exactly as they are, only unlabelled', () => {
    expect(pruneDecision({ ...base, labels: { [A]: 'true' }, annotations: IGNORE })).to.include({
      action: 'release',
      how: 'unlabel',
    });
    expect(
      pruneDecision({ ...base, labels: { [A]: 'true' }, ignoredInSet: true }),
      'the set now renders it with mode Ignore (the migration hand-over)',
    ).to.include({ action: 'release', how: 'unlabel' });
    expect(
      pruneDecision({
        ...base,
        labels: { [A]: 'true' },
        annotations: { 'resources.gardener.cloud/mode': 'x' },
      }),
    ).to.deep.equal({ action: 'delete' });
  });

  it('never deletes what another rendered set holds, even before that set was applied', () => {
    expect(pruneDecision({ ...base, labels: { [A]: 'true' }, heldElsewhere: true })).to.include({
      action: 'release',
      how: 'unlabel',
    });
  });

  it('marks membership with a label per set and a field manager per set', () => {
    expect(setLabelKey('shoot-gardener-node-agent')).to.equal(B);
    expect(setFieldManager('shoot-cloud-config-execution')).to.equal(
      'gardener-osc/shoot-cloud-config-execution',
    );
    expect(() => setLabelKey('a'.repeat(63))).not.to.throw();
    expect(() => setLabelKey('a'.repeat(64))).to.throw(/at most 63/);
    expect(() => setLabelKey('-x')).to.throw(/valid label name/);
    expect(() => setLabelKey('a/b')).to.throw(/valid label name/);
  });

  it('builds the apply body: labels merged with the membership label, server metadata dropped', () => {
    const body = applyBody('s', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'x',
        namespace: 'kube-system',
        labels: { a: 'b' },
        creationTimestamp: null,
        resourceVersion: '5',
      } as SetObject['metadata'],
      data: { k: 'dg==' },
      status: {},
    } as SetObject);
    expect(body).to.deep.equal({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'x',
        namespace: 'kube-system',
        labels: { a: 'b', 'set.node-configuration.gardener.cloud/s': 'true' },
      },
      data: { k: 'dg==' },
    });
  });

  it('rejects a set before writing: unknown kinds, scopes, names, duplicates', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a', namespace: 'n' } };
    expect(() => validateObjectSet('s', [secret])).not.to.throw();
    expect(() =>
      validateObjectSet('s', [
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'n' } },
      ]),
    ).to.throw(/not a kind a set may hold/);
    expect(() => validateObjectSet('s', [{ ...secret, metadata: { name: 'a' } }])).to.throw(
      /namespace is required/,
    );
    expect(() =>
      validateObjectSet('s', [
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'c', namespace: 'n' },
        },
      ]),
    ).to.throw(/cluster-scoped/);
    expect(() => validateObjectSet('s', [{ ...secret, metadata: { namespace: 'n' } }])).to.throw(
      /name is required/,
    );
    expect(() => validateObjectSet('s', [secret, secret])).to.throw(/appears twice/);
  });

  it('splits the rendering into one set per ManagedResource, as GRM would write them', () => {
    const values = RenderValuesSchema.parse(parseYaml(readFileSync(join(EXAMPLES, 'values.yaml'), 'utf8')));
    const rendered = renderNodeConfiguration({
      cluster: exampleCluster(),
      values,
      useGardenerNodeAgent: true,
      legacyNodes: true,
      now: parseRfc3339('2024-01-01T00:00:00Z'),
    });
    const sets = objectSetsFromManagedResources(rendered.seed);
    expect([...sets.keys()]).to.deep.equal(['shoot-gardener-node-agent', 'shoot-cloud-config-execution']);
    for (const [name, objects] of sets) {
      validateObjectSet(name, objects);
      for (const o of objects)
        expect(o.metadata.labels).to.include({ 'shoot.gardener.cloud/no-cleanup': 'true' });
    }
    // the flat `shoot` list is the union (with the bootstrap bindings once per set)
    const strip = (o: unknown) => {
      const { creationTimestamp, ...metadata } = (o as { metadata: Record<string, unknown> }).metadata;
      void creationTimestamp;
      return JSON.stringify({ ...(o as object), metadata }, Object.keys(o as object).sort());
    };
    const union = [...sets.values()].flat();
    expect(union.map(refOf).sort()).to.deep.equal(rendered.shoot.map((o) => refOf(o as SetObject)).sort());
    expect(union.map(strip).sort()).to.deep.equal(rendered.shoot.map(strip).sort());
    const legacyBindings = sets
      .get('shoot-cloud-config-execution')!
      .filter((o) => o.kind === 'ClusterRoleBinding')
      .map((o) => o.metadata.annotations);
    expect(legacyBindings).to.deep.equal([IGNORE, IGNORE, IGNORE]);
    const agentBindings = sets
      .get('shoot-gardener-node-agent')!
      .filter((o) => o.kind === 'ClusterRoleBinding' && o.metadata.name?.startsWith('system:'));
    expect(agentBindings.map((o) => o.metadata.annotations)).to.deep.equal([undefined, undefined, undefined]);
  });
});
