/** The operatingsystemconfig controller's decisions, table-tested without an API server. */
import { expect } from 'chai';
import type { ClusterObject, ManagedResource, OperatingSystemConfig } from '../../../api/index.js';
import {
  CLUSTER_FINALIZER,
  type ClusterDecision,
  decideCluster,
  finalizersWith,
  managedResourceWrites,
  migrationInput,
  objectsToWrite,
  oscWrites,
  readiness,
  staleOscs,
} from '../../../controllers/operatingsystemconfig/decide.js';
import { jsonEqual, mergePatchChanges } from '../../../seed/kube/seed-writes.js';

const cluster = (metadata: ClusterObject['metadata']): ClusterObject => ({
  metadata: { name: 'c', ...metadata },
});

describe('operatingsystemconfig: what happens to the Cluster', () => {
  const ours = [CLUSTER_FINALIZER];
  const cases: [string, ClusterObject | undefined, boolean, ClusterDecision][] = [
    ['gone', undefined, true, { action: 'ignore' }],
    [
      'deleted, not ours',
      cluster({ deletionTimestamp: 'now', finalizers: ['other'] }),
      true,
      { action: 'ignore' },
    ],
    ['deleted, ours', cluster({ deletionTimestamp: 'now', finalizers: ours }), true, { action: 'clean-up' }],
    [
      'deleted and deselected, ours',
      cluster({ deletionTimestamp: 'now', finalizers: ours }),
      false,
      { action: 'clean-up' },
    ],
    ['deselected, ours', cluster({ finalizers: ours }), false, { action: 'release', removeFinalizer: true }],
    ['deselected, never ours', cluster({}), false, { action: 'release', removeFinalizer: false }],
    ['selected, new', cluster({}), true, { action: 'reconcile', addFinalizer: true }],
    [
      'selected, ours',
      cluster({ finalizers: ['other', ...ours] }),
      true,
      { action: 'reconcile', addFinalizer: false },
    ],
  ];
  for (const [name, live, selected, want] of cases)
    it(name, () => expect(decideCluster(live, selected)).to.deep.equal(want));

  it('adds and removes only its own finalizer', () => {
    const live = cluster({ finalizers: ['a', CLUSTER_FINALIZER, 'b'] });
    expect(finalizersWith(live, false)).to.deep.equal(['a', 'b']);
    expect(finalizersWith(live, true)).to.deep.equal(['a', 'b', CLUSTER_FINALIZER]);
    expect(finalizersWith(cluster({}), true)).to.deep.equal([CLUSTER_FINALIZER]);
  });
});

describe('operatingsystemconfig: what the render takes from the migration', () => {
  it('waits for the first phase with the gate on; renders the legacy set while legacy nodes may remain', () => {
    const state = (phase: 'Legacy' | 'Migrating' | 'CleaningUp' | 'Completed') => ({ phase, since: '' });
    expect(migrationInput(true, undefined)).to.deep.equal({ wait: true });
    expect(migrationInput(false, undefined)).to.deep.equal({ wait: false, legacyNodes: true });
    expect(migrationInput(true, state('Legacy'))).to.deep.equal({ wait: false, legacyNodes: true });
    expect(migrationInput(true, state('Migrating'))).to.deep.equal({ wait: false, legacyNodes: true });
    expect(migrationInput(true, state('CleaningUp'))).to.deep.equal({ wait: false, legacyNodes: false });
    expect(migrationInput(true, state('Completed'))).to.deep.equal({ wait: false, legacyNodes: false });
  });

  it('renders v1.150.0 without legacy nodes, and holds a shoot whose legacy nodes remain on v1.91.4', () => {
    const since = '2026-01-01T00:00:00Z';
    expect(migrationInput(true, undefined, 'v1.150.0')).to.deep.equal({ wait: false, legacyNodes: false });
    expect(migrationInput(true, { phase: 'Completed', since }, 'v1.150.0')).to.deep.equal({
      wait: false,
      legacyNodes: false,
    });
    expect(migrationInput(true, { phase: 'CleaningUp', since }, 'v1.150.0')).to.deep.equal({
      wait: false,
      legacyNodes: false,
    });
    const migrating = migrationInput(true, { phase: 'Migrating', since }, 'v1.150.0');
    expect(migrating)
      .to.have.property('blocked')
      .that.matches(/legacy nodes remain \(migration phase Migrating\)/);
    expect(migrationInput(false, undefined, 'v1.150.0'))
      .to.have.property('blocked')
      .that.includes('UseGardenerNodeAgent');
  });
});

describe('operatingsystemconfig: only what differs is written', () => {
  it('a merge patch changes nothing when every field it sets already has that value', () => {
    const live = {
      metadata: {
        name: 's',
        labels: { a: '1', b: '2' },
        annotations: { renew: 'later' },
        resourceVersion: '7',
      },
      type: 'Opaque',
      data: { token: 'dA==' },
    };
    const cases: [string, unknown, boolean][] = [
      ['subset of labels', { metadata: { name: 's', labels: { a: '1' } } }, false],
      ['a label differs', { metadata: { labels: { a: '2' } } }, true],
      ['a label missing', { metadata: { labels: { c: '3' } } }, true],
      ['null removes a present field', { metadata: { annotations: { renew: null } } }, true],
      ['null of an absent field', { metadata: { annotations: { other: null } } }, false],
      ['a scalar differs', { type: 'kubernetes.io/tls' }, true],
      ['lists are replaced whole', { metadata: { finalizers: ['x'] } }, true],
    ];
    for (const [name, patch, changes] of cases)
      expect(mergePatchChanges(patch, live), name).to.equal(changes);
    expect(
      mergePatchChanges(
        { spec: { refs: [{ name: 'a' }, { name: 'b' }] } },
        { spec: { refs: [{ name: 'a' }, { name: 'b' }] } },
      ),
    ).to.equal(false);
    expect(
      mergePatchChanges(
        { spec: { refs: [{ name: 'a' }] } },
        { spec: { refs: [{ name: 'a' }, { name: 'b' }] } },
      ),
    ).to.equal(true);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).to.equal(true);
  });

  it('writes the rendered objects that are missing or would change', () => {
    const desired = [
      { metadata: { name: 'same', labels: { a: '1' } } },
      { metadata: { name: 'changed', labels: { a: '1' } } },
      { metadata: { name: 'missing', labels: { a: '1' } } },
    ];
    const live: Record<string, unknown> = {
      same: { metadata: { name: 'same', labels: { a: '1', extra: 'x' } } },
      changed: { metadata: { name: 'changed', labels: { a: '0' } } },
    };
    expect(objectsToWrite(desired, (name) => live[name]).map((o) => o.metadata.name)).to.deep.equal([
      'changed',
      'missing',
    ]);
  });

  const osc = (
    name: string,
    content = 'x',
    status?: OperatingSystemConfig['status'],
  ): OperatingSystemConfig => ({
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: {
      name,
      namespace: 'n',
      generation: 1,
      labels: { 'worker.gardener.cloud/pool': 'a' },
      annotations: { 'gardener.cloud/timestamp': '2024-01-01T00:00:00Z' },
    },
    spec: { type: 'gardenlinux', purpose: 'reconcile', units: [{ name: 'a.service', content }] },
    ...(status ? { status } : {}),
  });
  const reconciled: OperatingSystemConfig['status'] = {
    observedGeneration: 1,
    lastOperation: {
      type: 'Reconcile',
      state: 'Succeeded',
      progress: 100,
      lastUpdateTime: '2024-01-01T00:00:01Z',
      description: '',
    },
    cloudConfig: { secretRef: { name: 'osc-result-a', namespace: 'n' } },
  };

  it('writes an OSC only when its spec or pool label changed; readiness is judged on what was written', () => {
    const live = new Map([
      ['unchanged', osc('unchanged', 'x', reconciled)],
      ['changed', osc('changed', 'old', reconciled)],
    ]);
    const { write, current } = oscWrites([osc('unchanged'), osc('changed', 'new'), osc('new')], live);
    expect(write.map((o) => o.metadata.name)).to.deep.equal(['changed', 'new']);
    expect(current.get('unchanged')).to.equal(live.get('unchanged'));
    const r = readiness(current, live, new Set(write.map((o) => o.metadata.name ?? '')));
    expect([...r.ready.keys()]).to.deep.equal(['unchanged']);
    expect(r.waitingFor.map((w) => w.split(':')[0])).to.deep.equal(['changed', 'new']);
    expect(r.errors).to.deep.equal([]);
  });

  it('reports an OSC whose extension failed as an error, not only as waiting', () => {
    const failed = osc('failed', 'x', { ...reconciled, lastError: { description: 'boom' } });
    const r = readiness(new Map([['failed', failed]]), new Map([['failed', failed]]));
    expect(r.errors).to.deep.equal(['failed: error during reconciliation: boom']);
  });

  it('leaves a ManagedResource that already is the rendered one (and its secrets) alone', () => {
    const mr = (refs: string[]): ManagedResource =>
      ({
        apiVersion: 'resources.gardener.cloud/v1alpha1',
        kind: 'ManagedResource',
        metadata: { name: 'shoot-gardener-node-agent', namespace: 'n', labels: { origin: 'gardener' } },
        spec: { secretRefs: refs.map((name) => ({ name })), class: 'shoot' },
      }) as ManagedResource;
    const none = { createSecrets: false, writeManagedResource: false, pruneSecrets: false };
    const all = { createSecrets: true, writeManagedResource: true, pruneSecrets: true };
    expect(managedResourceWrites(mr(['a', 'b']), mr(['a', 'b']))).to.deep.equal(none);
    expect(managedResourceWrites(mr(['a', 'c']), mr(['a', 'b']))).to.deep.equal(all);
    expect(managedResourceWrites(mr(['a']), undefined)).to.deep.equal(all);
  });

  it('deletes the OSCs nothing renders any more, unless they are already being deleted', () => {
    const live = [
      osc('kept'),
      osc('stale'),
      { ...osc('going'), metadata: { ...osc('going').metadata, deletionTimestamp: 'now' } },
    ];
    expect(staleOscs([osc('kept')], live).map((o) => o.metadata.name)).to.deep.equal(['stale']);
  });
});
