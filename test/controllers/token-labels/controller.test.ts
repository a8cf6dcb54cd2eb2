import { expect } from 'chai';
import { Registry } from 'prom-client';
import { shootAccessSecret } from '../../../api/index.js';
import {
  type AccessTokenLabelPatch,
  labelDecision,
  type PatchOutcome,
  type SecretObject,
  type TargetSecret,
  TokenLabelsReconciler,
  targetsFromShootAccessSecrets,
  tokenLabelsMetrics,
} from '../../../controllers/token-labels/index.js';
import type { EventRecorder } from '../../../runtime/events.js';
import { silentLogger } from '../../../runtime/logging.js';
import { SHOOT_ACCESS_SELECTOR } from '../../../seed/manager/seed-informers.js';

const NS = 'shoot--dev--demo';
const NAME_ANNOTATION = 'token-requestor.resources.gardener.cloud/target-secret-name';
const NAMESPACE_ANNOTATION = 'token-requestor.resources.gardener.cloud/target-secret-namespace';

describe('token-labels controller: decisions', () => {
  it('selects shoot-class token-requestor secrets', () => {
    expect(SHOOT_ACCESS_SELECTOR).to.equal(
      'resources.gardener.cloud/purpose=token-requestor,resources.gardener.cloud/class=shoot',
    );
  });

  it('derives the targets of shoot-access secrets, deduplicated and sorted', () => {
    const result = targetsFromShootAccessSecrets([
      shootAccessSecret({ name: 'valitail', namespace: NS, targetSecretName: 'gardener-valitail' }),
      shootAccessSecret({
        name: 'gardener-node-agent',
        namespace: NS,
        targetSecretName: 'gardener-node-agent',
      }),
      shootAccessSecret({ name: 'other', namespace: NS, targetSecretName: 'gardener-node-agent' }),
      shootAccessSecret({ name: 'x', namespace: NS, targetSecretName: 'x', targetSecretNamespace: 'garden' }),
    ]);
    expect([...result.targets.keys()]).to.deep.equal([
      'garden/x',
      'kube-system/gardener-node-agent',
      'kube-system/gardener-valitail',
    ]);
    expect(result.targets.get('garden/x')).to.deep.equal({ namespace: 'garden', name: 'x' });
    expect(result.problems).to.deep.equal([]);
  });

  it('skips other classes and secrets without a target; reports unusable targets', () => {
    const seedClass = shootAccessSecret({ name: 'a', namespace: NS, targetSecretName: 'a' });
    seedClass.metadata.labels['resources.gardener.cloud/class'] = 'seed';
    const noTarget = shootAccessSecret({ name: 'b', namespace: NS, targetSecretName: 'b' });
    delete noTarget.metadata.annotations[NAME_ANNOTATION];
    const noNamespace = shootAccessSecret({ name: 'c', namespace: NS, targetSecretName: 'c' });
    delete noNamespace.metadata.annotations[NAMESPACE_ANNOTATION];
    const badName = shootAccessSecret({ name: 'd', namespace: NS, targetSecretName: 'a/../b' });
    const result = targetsFromShootAccessSecrets([
      seedClass,
      noTarget,
      noNamespace,
      badName,
      { metadata: {} },
      7,
    ]);
    expect([...result.targets]).to.deep.equal([]);
    expect(result.problems).to.deep.equal([
      `secret shoot-access-c: annotation ${NAMESPACE_ANNOTATION} is missing`,
      `secret shoot-access-d: annotation ${NAME_ANNOTATION} is not a valid Secret name (DNS-1123 subdomain)`,
    ]);
  });

  it('patches only the role label, with the resourceVersion, never data', () => {
    const secret = {
      metadata: {
        name: 'gardener-node-agent',
        namespace: 'kube-system',
        resourceVersion: '42',
        labels: { a: 'b' },
      },
      data: { token: 'dG9rZW4=' },
    };
    expect(labelDecision(secret)).to.deep.equal({
      action: 'patch',
      body: { metadata: { resourceVersion: '42', labels: { 'gardener.cloud/role': 'access-token' } } },
    });
  });

  it('does nothing to labelled, deleting, or otherwise-labelled secrets', () => {
    const meta = { name: 's', namespace: 'kube-system', resourceVersion: '1' };
    expect(
      labelDecision({ metadata: { ...meta, labels: { 'gardener.cloud/role': 'access-token' } } }),
    ).to.deep.equal({
      action: 'none',
      why: 'labelled',
    });
    expect(labelDecision({ metadata: { ...meta, deletionTimestamp: '2024-01-01T00:00:00Z' } })).to.deep.equal(
      {
        action: 'none',
        why: 'deleting',
      },
    );
    expect(
      labelDecision({ metadata: { ...meta, labels: { 'gardener.cloud/role': 'kubeconfig' } } }),
    ).to.deep.equal({
      action: 'none',
      why: 'foreign-role',
      role: 'kubeconfig',
    });
    expect(labelDecision({ metadata: { ...meta, labels: { 'gardener.cloud/role': '' } } }).action).to.equal(
      'patch',
    );
  });
});

describe('token-labels controller: reconciler', () => {
  const ctx = () => ({ signal: new AbortController().signal, log: silentLogger });
  const target: TargetSecret = { namespace: 'kube-system', name: 'gardener-node-agent' };
  const key = 'kube-system/gardener-node-agent';

  function setup(secret: SecretObject | undefined) {
    const patches: AccessTokenLabelPatch[] = [];
    const outcomes: PatchOutcome[] = [];
    const events: string[] = [];
    const metrics = tokenLabelsMetrics(new Registry());
    const state = { secret };
    const reconciler = new TokenLabelsReconciler({
      shoot: NS,
      target: (k) => (k === key ? target : undefined),
      secret: () => state.secret,
      patcher: {
        async patch(t, body) {
          expect(t).to.deep.equal(target);
          patches.push(body);
          return outcomes.shift() ?? 'patched';
        },
      },
      recorder: {
        event: async (_o: unknown, type: string, reason: string) => {
          events.push(`${type} ${reason}`);
        },
      } as unknown as EventRecorder,
      eventObject: { kind: 'Cluster', name: NS },
      metrics,
    });
    return { patches, outcomes, events, metrics, state, reconciler };
  }

  it('labels an unlabelled target, and requeues with backoff on conflicts', async () => {
    const t = setup({ metadata: { name: target.name, namespace: target.namespace, resourceVersion: '5' } });
    t.outcomes.push('conflict', 'conflict');
    expect(await t.reconciler.reconcile(key, ctx())).to.deep.equal({ requeueAfterMs: 100 });
    expect(await t.reconciler.reconcile(key, ctx())).to.deep.equal({ requeueAfterMs: 200 });
    expect(await t.reconciler.reconcile(key, ctx())).to.equal(undefined);
    expect(t.patches).to.have.length(3);
    expect((await t.metrics.patches.get()).values.map((v) => [v.labels.result, v.value])).to.deep.equal([
      ['conflict', 2],
      ['patched', 1],
    ]);
  });

  it('ignores keys that are no longer targets and secrets not created yet', async () => {
    const t = setup(undefined);
    expect(await t.reconciler.reconcile(key, ctx())).to.equal(undefined);
    expect(await t.reconciler.reconcile('kube-system/other', ctx())).to.equal(undefined);
    expect(t.patches).to.deep.equal([]);
  });

  it('reports another role once and leaves it', async () => {
    const t = setup({ metadata: { name: target.name, labels: { 'gardener.cloud/role': 'mine' } } });
    await t.reconciler.reconcile(key, ctx());
    await t.reconciler.reconcile(key, ctx());
    expect(t.patches).to.deep.equal([]);
    expect(t.events).to.deep.equal(['Warning AccessTokenRoleConflict']);
  });
});
