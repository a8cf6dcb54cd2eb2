/**
 * `applyMode: direct` against a real API server: sets are server-side applied, re-applying a
 * changed set prunes what it dropped, an object in two sets survives the deletion of one, and
 * Ignore-mode objects (the bootstrap ClusterRoleBindings of the migration) survive their set's
 * deletion. The last case runs the real rendered ManagedResources through the migration.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { decodeCluster, parseRfc3339, parseYaml } from '../../api/index.js';
import { renderNodeConfiguration } from '../../charts/node-configuration.js';
import { RenderValuesSchema } from '../../charts/values/render-values.js';
import {
  createTestNamespace,
  type Envtest,
  requireClusterScopedWrites,
  startEnvtest,
} from '../../hack/landscape/envtest.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { resourceOf } from '../../runtime/kube/resource.js';
import {
  applyObjectSet,
  applyObjectSets,
  deleteObjectSet,
  objectSetsFromManagedResources,
  refOf,
  type SetObject,
} from '../../seed/direct-apply/index.js';
import { kindOf } from '../../seed/direct-apply/object-set.js';

const RBAC = 'rbac.authorization.k8s.io/v1';
const label = (set: string) => `set.node-configuration.gardener.cloud/${set}`;

describe('direct apply of object sets into a real shoot API server (issue #6)', function () {
  this.timeout(120_000);
  let env: Envtest;
  let core: CoreV1Api;
  let rbac: RbacAuthorizationV1Api;
  let client: KubeClient;
  let ns: string;
  const sfx = Date.now().toString(36);
  const setA = `t-${sfx}-a`;
  const setB = `t-${sfx}-b`;
  const setL = `t-${sfx}-legacy`;
  const created: SetObject[] = [];

  const secret = (name: string, data = 'v'): SetObject =>
    ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: ns, labels: { 'shoot.gardener.cloud/no-cleanup': 'true' } },
      type: 'Opaque',
      data: { k: Buffer.from(data).toString('base64') },
    }) as SetObject;
  const crb = (
    name: string,
    annotations?: Record<string, string>,
    labels?: Record<string, string>,
  ): SetObject =>
    ({
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name, ...(annotations ? { annotations } : {}), ...(labels ? { labels } : {}) },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'system:node-bootstrapper',
      },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:bootstrappers' }],
    }) as SetObject;
  const track = (...objects: SetObject[]) => {
    created.push(...objects);
    return objects;
  };

  /** The live object, or undefined. */
  const live = async (o: SetObject) =>
    client
      .get<{
        metadata: { uid: string; labels?: Record<string, string>; annotations?: Record<string, string> };
      }>(resourceOf(o), { name: o.metadata.name ?? '', namespace: o.metadata.namespace })
      .catch(() => undefined);

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'shoot' });
    requireClusterScopedWrites(env);
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    client = new KubeClient(new KubeHttp(env.kubeConfig));
    ns = await createTestNamespace(env, 'direct-apply');
  });

  after(async () => {
    for (const o of created) {
      const kind = kindOf(o);
      if (!kind) continue;
      await client
        ?.delete(resourceOf(kind), { name: o.metadata.name ?? '', namespace: o.metadata.namespace })
        .catch(() => undefined);
    }
    if (ns) {
      await core?.deleteCollectionNamespacedSecret({ namespace: ns }).catch(() => undefined);
      await core?.deleteNamespace({ name: ns }).catch(() => undefined);
    }
  });

  it('applies a set, and re-applying a changed set prunes exactly what it dropped', async () => {
    const objects = track(
      secret(`${sfx}-s1`),
      secret(`${sfx}-s2`),
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: `${sfx}-sa`, namespace: ns } },
      {
        apiVersion: RBAC,
        kind: 'Role',
        metadata: { name: `${sfx}-role`, namespace: ns },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
      } as SetObject,
      {
        apiVersion: RBAC,
        kind: 'RoleBinding',
        metadata: { name: `${sfx}-rb`, namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${sfx}-role` },
        subjects: [{ kind: 'ServiceAccount', name: `${sfx}-sa`, namespace: ns }],
      } as SetObject,
      {
        apiVersion: RBAC,
        kind: 'ClusterRole',
        metadata: { name: `${sfx}:cr` },
        rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }],
      } as SetObject,
      crb(`${sfx}:crb`),
    );
    const first = await applyObjectSet(client, setA, objects);
    expect(first.applied).to.have.length(7);
    expect(first).to.deep.include({ pruned: [], released: [], ignored: [] });
    for (const o of objects) {
      const l = await live(o);
      expect(l, refOf(o)).not.to.equal(undefined);
      expect(l!.metadata.labels).to.include({ [label(setA)]: 'true' });
    }
    const s1 = await core.readNamespacedSecret({ name: `${sfx}-s1`, namespace: ns });
    expect(s1.metadata?.labels).to.include({ 'shoot.gardener.cloud/no-cleanup': 'true' });
    expect(s1.metadata?.managedFields?.map((m) => [m.manager, m.operation])).to.deep.include([
      `gardener-osc/${setA}`,
      'Apply',
    ]);

    // change s1, drop s2 and the ClusterRole: the rest stays as it was (same uid)
    const uid = (await live(objects[0]!))!.metadata.uid;
    const kept = [secret(`${sfx}-s1`, 'changed'), ...objects.slice(2, 5), objects[6]!];
    const second = await applyObjectSet(client, setA, kept);
    expect(second.pruned.sort()).to.deep.equal([`ClusterRole/${sfx}:cr`, `Secret/${ns}/${sfx}-s2`].sort());
    expect(second.released).to.deep.equal([]);
    expect(await live(objects[1]!)).to.equal(undefined);
    expect(await live(objects[5]!)).to.equal(undefined);
    expect((await live(objects[0]!))!.metadata.uid).to.equal(uid);
    const changed = await core.readNamespacedSecret({ name: `${sfx}-s1`, namespace: ns });
    expect(Buffer.from(changed.data!.k!, 'base64').toString()).to.equal('changed');

    // deleting the set removes the rest
    const gone = await deleteObjectSet(client, setA);
    expect(gone.pruned).to.have.length(5);
    for (const o of objects) expect(await live(o), refOf(o)).to.equal(undefined);
  });

  it('keeps an object two sets hold when one set is deleted, minus what only that set said', async () => {
    const [shared] = track(crb(`${sfx}:shared`));
    const [onlyA] = track(secret(`${sfx}-only-a`));
    // set A adds a label of its own; set B does not
    await applyObjectSet(client, setA, [crb(`${sfx}:shared`, undefined, { 'only-a': 'x' }), onlyA!]);
    await applyObjectSet(client, setB, [shared!]);
    const before = (await live(shared!))!;
    expect(before.metadata.labels).to.include({
      [label(setA)]: 'true',
      [label(setB)]: 'true',
      'only-a': 'x',
    });

    const summary = await deleteObjectSet(client, setA);
    expect(summary.released).to.deep.equal([`ClusterRoleBinding/${sfx}:shared`]);
    expect(summary.pruned).to.deep.equal([`Secret/${ns}/${sfx}-only-a`]);
    const after = (await live(shared!))!;
    expect(after.metadata.uid).to.equal(before.metadata.uid);
    expect(after.metadata.labels).to.deep.equal({ [label(setB)]: 'true' });
    const binding = await rbac.readClusterRoleBinding({ name: `${sfx}:shared` });
    expect(binding.subjects).to.deep.equal([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:bootstrappers' },
    ]);
    expect(binding.metadata?.managedFields?.map((m) => m.manager)).not.to.include(`gardener-osc/${setA}`);

    expect((await deleteObjectSet(client, setB)).pruned).to.deep.equal([`ClusterRoleBinding/${sfx}:shared`]);
    expect(await live(shared!)).to.equal(undefined);
  });

  it('never deletes an object moving to another rendered set, and keeps its uid', async () => {
    const [moving] = track(secret(`${sfx}-moving`));
    await applyObjectSet(client, setA, [moving!]);
    const uid = (await live(moving!))!.metadata.uid;
    const results = await applyObjectSets(
      client,
      new Map([
        [setA, []],
        [setB, [moving!]],
      ]),
    );
    expect(results.get(setA)).to.deep.include({ pruned: [], released: [`Secret/${ns}/${sfx}-moving`] });
    const now = (await live(moving!))!;
    expect(now.metadata.uid).to.equal(uid);
    expect(now.metadata.labels).to.include({ [label(setB)]: 'true' });
    expect(now.metadata.labels).not.to.have.property(label(setA));
    await deleteObjectSet(client, setB);
    expect(await live(moving!)).to.equal(undefined);
  });

  it('keeps an Ignore-mode ClusterRoleBinding when its set is deleted', async () => {
    // the legacy set first rendered the binding plainly (gate off), then with mode Ignore (gate on)
    const [handedOver] = track(crb(`${sfx}:handed-over`));
    await applyObjectSet(client, setL, [handedOver!]);
    const uid = (await live(handedOver!))!.metadata.uid;
    const ignore = { 'resources.gardener.cloud/mode': 'Ignore' };
    const summary = await applyObjectSet(client, setL, [crb(`${sfx}:handed-over`, ignore)]);
    expect(summary).to.deep.include({
      applied: [],
      ignored: [`ClusterRoleBinding/${sfx}:handed-over`],
      released: [`ClusterRoleBinding/${sfx}:handed-over`],
      pruned: [],
    });
    // a binding an operator marked Ignore on the live object is kept as well
    const [marked] = track(crb(`${sfx}:marked`));
    await applyObjectSet(client, setL, [crb(`${sfx}:handed-over`, ignore), marked!]);
    await client.mergePatch(
      resourceOf(marked!),
      { name: marked!.metadata.name ?? '' },
      {
        metadata: { annotations: ignore },
      },
    );

    const deleted = await deleteObjectSet(client, setL);
    expect(deleted.pruned).to.deep.equal([]);
    expect(deleted.released).to.deep.equal([`ClusterRoleBinding/${sfx}:marked`]);
    const kept = (await live(handedOver!))!;
    expect(kept.metadata.uid).to.equal(uid);
    expect(kept.metadata.labels ?? {}).not.to.have.property(label(setL));
    const markedLive = (await live(marked!))!;
    expect(markedLive.metadata.annotations).to.include(ignore);
    expect(markedLive.metadata.labels ?? {}).not.to.have.property(label(setL));
  });

  it('runs the rendered ManagedResources through the migration: legacy deleted, bootstrap bindings kept', async () => {
    const examples = join(import.meta.dirname, '../../examples');
    const decoded = decodeCluster(parseYaml(readFileSync(join(examples, 'cluster.yaml'), 'utf8')));
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
    // the v1.91 sets: the shared ServiceAccount's RBAC is what the migration must keep or remove
    const values = {
      ...RenderValuesSchema.parse(parseYaml(readFileSync(join(examples, 'values.yaml'), 'utf8'))),
      nodeAgentIdentity: 'serviceAccount' as const,
    };
    const render = (useGardenerNodeAgent: boolean, legacyNodes: boolean) =>
      objectSetsFromManagedResources(
        renderNodeConfiguration({
          cluster: decoded.value,
          values,
          useGardenerNodeAgent,
          legacyNodes,
          now: parseRfc3339('2024-01-01T00:00:00Z'),
        }).seed,
      );
    const legacyOnly = render(false, true);
    const both = render(true, true);
    const done = render(true, false);
    const all = [...legacyOnly.values(), ...both.values()].flat();
    for (const o of all) {
      if (created.some((c) => refOf(c) === refOf(o))) continue;
      expect(await live(o), `${refOf(o)} must not exist before the test`).to.equal(undefined);
      track(o);
    }
    const bootstrap = [
      'system:node-bootstrapper',
      'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
      'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
    ].map((name) => crb(name));

    // gate off: only the legacy set, which owns the bootstrap bindings
    await applyObjectSets(client, legacyOnly);
    const uids = await Promise.all(bootstrap.map(async (b) => (await live(b))!.metadata.uid));
    // gate on with legacy nodes: both sets; the legacy set hands the bindings over (mode Ignore)
    const migrating = await applyObjectSets(client, both);
    expect(migrating.get('shoot-cloud-config-execution')!.ignored).to.have.length(3);
    expect(migrating.get('shoot-cloud-config-execution')!.pruned).to.deep.equal([]);
    for (const b of bootstrap) {
      const l = (await live(b))!;
      expect(l.metadata.labels).to.include({ [label('shoot-gardener-node-agent')]: 'true' });
      expect(l.metadata.labels).not.to.have.property(label('shoot-cloud-config-execution'));
    }
    // every node migrated: the legacy set is deleted
    const results = await applyObjectSets(client, done, { remove: ['shoot-cloud-config-execution'] });
    const legacy = results.get('shoot-cloud-config-execution')!;
    expect(legacy.pruned.sort()).to.deep.equal(
      both
        .get('shoot-cloud-config-execution')!
        .filter((o) => o.kind !== 'ClusterRoleBinding')
        .map(refOf)
        .sort(),
    );
    for (const [i, b] of bootstrap.entries()) expect((await live(b))!.metadata.uid).to.equal(uids[i]);
    for (const o of done.get('shoot-gardener-node-agent')!)
      expect(await live(o), refOf(o)).not.to.equal(undefined);
    const role = await rbac.readNamespacedRole({ name: 'gardener-node-agent', namespace: 'kube-system' });
    expect(role.metadata?.labels).to.include({ 'shoot.gardener.cloud/no-cleanup': 'true' });

    // the shoot is deleted: so is everything of the node agent's set
    const last = await deleteObjectSet(client, 'shoot-gardener-node-agent');
    expect(last.pruned).to.have.length(done.get('shoot-gardener-node-agent')!.length);
    for (const b of bootstrap) expect(await live(b)).to.equal(undefined);
  });
});
