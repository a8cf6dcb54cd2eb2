/**
 * The os-local controller's decisions (pure) and its reconciler against a fake of our own client
 * interface (an in-memory store with merge-patch and resourceVersion semantics).
 */
import type { V1OwnerReference, V1Secret } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../../api/index.js';
import { inlineSecretRefs } from '../../../components/os-local/secret-refs.js';
import { renderUserData } from '../../../components/os-local/user-data.js';
import { oscReadiness } from '../../../controllers/operatingsystemconfig/osc-readiness.js';
import { ConflictError, type OsLocalClient } from '../../../controllers/os-local/client.js';
import {
  computeOperationType,
  decide,
  FINALIZER,
  type OscObject,
  updateNeedsReconcile,
} from '../../../controllers/os-local/decide.js';
import { CONFLICT_RETRY_MS, OsLocalReconciler } from '../../../controllers/os-local/reconciler.js';
import {
  errorStatus,
  secretPatch,
  successStatus,
  withControllerReference,
} from '../../../controllers/os-local/status.js';
import { silentLogger } from '../../../runtime/logging.js';

const NOW = new Date('2024-01-01T10:00:05.123Z');
const TIMESTAMP = '2024-01-01T10:00:00Z';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

function osc(overrides: {
  metadata?: Partial<NonNullable<OscObject['metadata']>>;
  spec?: Record<string, unknown>;
  status?: OscObject['status'];
}): OscObject {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: {
      name: 'pool-init',
      namespace: 'shoot--a--b',
      uid: 'uid-1',
      generation: 1,
      annotations: { 'gardener.cloud/operation': 'reconcile', 'gardener.cloud/timestamp': TIMESTAMP },
      ...overrides.metadata,
    },
    spec: {
      type: 'local',
      purpose: 'provision',
      units: [{ name: 'a.service', content: '[Service]\nExecStart=/bin/true\n' }],
      files: [{ path: '/etc/a', permissions: 0o600, content: { inline: { encoding: '', data: 'a' } } }],
      ...overrides.spec,
    },
    ...(overrides.status ? { status: overrides.status } : {}),
  };
}

const succeeded = (type = 'Reconcile') => ({
  observedGeneration: 1,
  lastOperation: { type, state: 'Succeeded', progress: 100, lastUpdateTime: TIMESTAMP, description: '' },
});
const upToDate = () => osc({ metadata: { annotations: {}, finalizers: [FINALIZER] }, status: succeeded() });

describe('os-local controller: decisions', () => {
  it('a new OSC is created; a reconciled one is left alone', () => {
    expect(decide(osc({}))).to.deep.equal({
      action: 'reconcile',
      operation: 'Create',
      reason: 'reconcile requested',
    });
    expect(decide(upToDate())).to.deep.equal({ action: 'none', reason: 'up to date' });
  });

  it('acts on a changed generation, a reconcile request, a missing finalizer or status, a failure', () => {
    const base = upToDate();
    const cases: [OscObject, string, string][] = [
      [{ ...base, metadata: { ...base.metadata, generation: 2 } }, 'Reconcile', 'generation changed'],
      [
        { ...base, metadata: { ...base.metadata, annotations: { 'gardener.cloud/operation': 'reconcile' } } },
        'Reconcile',
        'reconcile requested',
      ],
      [{ ...base, metadata: { ...base.metadata, finalizers: [] } }, 'Reconcile', 'finalizer missing'],
      [{ ...base, status: {} }, 'Create', 'status missing'],
      [
        { ...base, status: { ...base.status, lastOperation: { type: 'Create', state: 'Error' } } },
        'Create',
        'last operation Create is Error',
      ],
      [
        { ...base, status: { ...base.status, lastOperation: { type: 'Reconcile', state: 'Error' } } },
        'Reconcile',
        'last operation Reconcile is Error',
      ],
    ];
    for (const [object, operation, reason] of cases) {
      expect(decide(object), reason).to.deep.equal({ action: 'reconcile', operation, reason });
    }
  });

  it('deletes only while its finalizer is on the object', () => {
    const base = upToDate();
    const deleting = { ...base, metadata: { ...base.metadata, deletionTimestamp: TIMESTAMP } };
    expect(decide(deleting).action).to.equal('delete');
    expect(
      decide({ ...deleting, metadata: { ...deleting.metadata, finalizers: ['other'] } }).action,
    ).to.equal('none');
  });

  it('migrate, restore and wait-for-state as upstream (ComputeOperationType, ShouldSkipOperation)', () => {
    const base = upToDate();
    const annotated = (operation: string, status = base.status) => ({
      ...base,
      metadata: { ...base.metadata, annotations: { 'gardener.cloud/operation': operation } },
      status,
    });
    expect(decide(annotated('migrate')).action).to.equal('migrate');
    expect(decide(annotated('restore'))).to.deep.include({ action: 'reconcile', operation: 'Restore' });
    expect(decide(annotated('wait-for-state')).action).to.equal('none');
    const migrated = { ...base, status: succeeded('Migrate') };
    expect(decide(migrated)).to.deep.equal({ action: 'none', reason: 'migrated away' });
    expect(decide(annotated('restore', succeeded('Migrate'))).action).to.equal('reconcile');
    expect(
      computeOperationType({ ...base, status: { lastOperation: { type: 'Restore', state: 'Error' } } }),
    ).to.equal('Restore');
    expect(
      computeOperationType({ ...base, status: { lastOperation: { type: 'Create', state: 'Succeeded' } } }),
    ).to.equal('Reconcile');
  });

  it('an update enqueues only when something besides the status changed and work is needed', () => {
    const before = osc({});
    const statusOnly = { ...before, status: { lastOperation: { type: 'Create', state: 'Error' } } };
    expect(updateNeedsReconcile(before, statusOnly), 'our own error status').to.equal(false);
    const done = upToDate();
    const ownSuccess = { ...done, status: { ...done.status, observedGeneration: 1 } };
    expect(updateNeedsReconcile(done, ownSuccess)).to.equal(false);
    const specChange = { ...done, metadata: { ...done.metadata, generation: 2 } };
    expect(updateNeedsReconcile(done, specChange)).to.equal(true);
    const requested = {
      ...done,
      metadata: { ...done.metadata, annotations: { 'gardener.cloud/operation': 'reconcile' } },
    };
    expect(updateNeedsReconcile(done, requested)).to.equal(true);
    const wiped = { ...done, status: {} };
    expect(updateNeedsReconcile(done, wiped), 'status removed').to.equal(true);
    const labelled = { ...done, metadata: { ...done.metadata, labels: { a: 'b' } } };
    expect(updateNeedsReconcile(done, labelled), 'nothing to do').to.equal(false);
  });
});

describe('os-local controller: status and secret', () => {
  it('success clears lastError, records the generation and removes owned fields it does not set', () => {
    const patch = successStatus(osc({ metadata: { generation: 7 } }), 'Create', NOW, {
      cloudConfig: { secretRef: { name: 'osc-result-pool-init', namespace: 'shoot--a--b' } },
    });
    expect(patch).to.deep.equal({
      status: {
        cloudConfig: { secretRef: { name: 'osc-result-pool-init', namespace: 'shoot--a--b' } },
        command: null,
        units: null,
        files: null,
        extensionUnits: null,
        extensionFiles: null,
        lastOperation: {
          type: 'Create',
          state: 'Succeeded',
          progress: 100,
          lastUpdateTime: '2024-01-01T10:00:05Z',
          description: 'Successfully reconciled OperatingSystemConfig',
        },
        lastError: null,
        observedGeneration: 7,
      },
    });
  });

  it('an error is recorded as upstream ReconcileError does', () => {
    expect(errorStatus(osc({}), 'Reconcile', NOW, new Error('boom'))).to.deep.equal({
      status: {
        lastOperation: {
          type: 'Reconcile',
          state: 'Error',
          progress: 50,
          lastUpdateTime: '2024-01-01T10:00:05Z',
          description: 'Error reconciling OperatingSystemConfig: boom',
        },
        lastError: {
          description: 'Error reconciling OperatingSystemConfig: boom',
          lastUpdateTime: '2024-01-01T10:00:05Z',
        },
        observedGeneration: 1,
      },
    });
  });

  it('the controller reference replaces one to the same OSC and refuses another controller', () => {
    const owner: V1OwnerReference = {
      apiVersion: 'extensions.gardener.cloud/v1alpha1',
      kind: 'OperatingSystemConfig',
      name: 'x',
      uid: 'new',
      controller: true,
      blockOwnerDeletion: true,
    };
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'c' };
    expect(withControllerReference([other, { ...owner, uid: 'old' }], owner)).to.deep.equal([other, owner]);
    expect(() => withControllerReference([{ ...other, controller: true }], owner)).to.throw(
      'already controlled by ConfigMap "c"',
    );
  });

  it('an unchanged secret needs no patch', () => {
    const owner: V1OwnerReference = {
      apiVersion: 'extensions.gardener.cloud/v1alpha1',
      kind: 'OperatingSystemConfig',
      name: 'x',
      uid: 'u',
      controller: true,
      blockOwnerDeletion: true,
    };
    const wanted: V1Secret = { metadata: { ownerReferences: [owner] }, data: { cloud_config: b64('x') } };
    expect(secretPatch(wanted, wanted)).to.equal(undefined);
    expect(secretPatch({ ...wanted, data: { cloud_config: b64('y') } }, wanted)).to.deep.equal({
      data: { cloud_config: b64('x') },
    });
    expect(secretPatch({ data: wanted.data }, wanted)).to.deep.equal({
      metadata: { ownerReferences: [owner] },
    });
  });
});

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return structuredClone(patch);
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

type Call = { verb: string; what: string };

/** An in-memory API server for the calls of OsLocalClient. */
class FakeClient implements OsLocalClient {
  readonly oscs = new Map<string, OscObject>();
  readonly secrets = new Map<string, V1Secret>();
  readonly calls: Call[] = [];
  private rv = 10;
  /** Makes the next annotation removal conflict (someone wrote in between). */
  conflictOnAnnotationRemoval = false;

  put(object: OscObject): void {
    const m = object.metadata!;
    this.oscs.set(`${m.namespace}/${m.name}`, {
      ...structuredClone(object),
      metadata: { ...m, resourceVersion: String(this.rv++) },
    });
  }

  async getOsc(namespace: string, name: string) {
    this.calls.push({ verb: 'get', what: `osc ${name}` });
    const o = this.oscs.get(`${namespace}/${name}`);
    return o && structuredClone(o);
  }

  async patchOsc(namespace: string, name: string, patch: Record<string, unknown>) {
    this.calls.push({ verb: 'patch', what: `osc ${name} ${JSON.stringify(patch)}` });
    const key = `${namespace}/${name}`;
    const current = this.oscs.get(key);
    if (!current) throw new Error('not found');
    const meta = (patch.metadata ?? {}) as {
      resourceVersion?: string;
      annotations?: Record<string, unknown>;
    };
    const removesAnnotation = meta.annotations?.['gardener.cloud/operation'] === null;
    if (removesAnnotation && this.conflictOnAnnotationRemoval) {
      this.conflictOnAnnotationRemoval = false;
      throw new ConflictError(key);
    }
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== current.metadata?.resourceVersion)
      throw new ConflictError(key);
    const { status: _ignored, ...metadataOnly } = patch;
    const next = mergePatch(current, metadataOnly) as OscObject;
    next.metadata!.resourceVersion = String(this.rv++);
    if (
      (next.metadata?.deletionTimestamp ?? null) !== null &&
      (next.metadata?.finalizers ?? []).length === 0
    ) {
      this.oscs.delete(key);
    } else {
      this.oscs.set(key, next);
    }
    return structuredClone(next);
  }

  async patchOscStatus(namespace: string, name: string, patch: Record<string, unknown>) {
    this.calls.push({ verb: 'patch-status', what: `osc ${name}` });
    const key = `${namespace}/${name}`;
    const current = this.oscs.get(key);
    if (!current) return undefined;
    const next = { ...current, status: mergePatch(current.status ?? {}, patch.status) } as OscObject;
    next.metadata = { ...next.metadata, resourceVersion: String(this.rv++) };
    this.oscs.set(key, next);
    return structuredClone(next);
  }

  async getSecret(namespace: string, name: string) {
    this.calls.push({ verb: 'get', what: `secret ${name}` });
    const s = this.secrets.get(`${namespace}/${name}`);
    return s && structuredClone(s);
  }

  async createSecret(secret: V1Secret) {
    this.calls.push({ verb: 'create', what: `secret ${secret.metadata?.name}` });
    const key = `${secret.metadata?.namespace}/${secret.metadata?.name}`;
    if (this.secrets.has(key)) throw new ConflictError(key);
    this.secrets.set(key, {
      ...structuredClone(secret),
      metadata: { ...secret.metadata, resourceVersion: String(this.rv++) },
    });
  }

  async patchSecret(namespace: string, name: string, patch: Record<string, unknown>) {
    this.calls.push({ verb: 'patch', what: `secret ${name}` });
    const key = `${namespace}/${name}`;
    const current = this.secrets.get(key);
    if (!current) throw new Error('not found');
    const next = mergePatch(current, patch) as V1Secret;
    next.metadata!.resourceVersion = String(this.rv++);
    this.secrets.set(key, next);
  }

  async deleteSecret(namespace: string, name: string) {
    this.calls.push({ verb: 'delete', what: `secret ${name}` });
    this.secrets.delete(`${namespace}/${name}`);
  }

  writes(): Call[] {
    return this.calls.filter((c) => c.verb !== 'get');
  }
}

type Recorded = { reason: string; type: string; message: string };

function setup(type = 'local') {
  const client = new FakeClient();
  const events: Recorded[] = [];
  const reconciler = new OsLocalReconciler({
    type,
    client,
    recorder: {
      event: async (_o, eventType, reason, message) => {
        events.push({ type: eventType, reason, message });
      },
    },
    now: () => NOW,
  });
  const ctx = { signal: new AbortController().signal, log: silentLogger };
  const run = (name = 'pool-init') => reconciler.reconcile(`shoot--a--b/${name}`, ctx);
  return { client, events, run };
}

describe('os-local controller: reconciler', () => {
  it('renders a provision OSC into its result secret, fills the status, removes the annotation', async () => {
    const { client, events, run } = setup();
    const written = osc({});
    client.put(written);
    expect(await run()).to.equal(undefined);

    const live = client.oscs.get('shoot--a--b/pool-init')!;
    expect(live.metadata?.finalizers).to.deep.equal([FINALIZER]);
    expect(live.metadata?.annotations).to.deep.equal({ 'gardener.cloud/timestamp': TIMESTAMP });
    expect(live.status).to.deep.equal({
      cloudConfig: { secretRef: { name: 'osc-result-pool-init', namespace: 'shoot--a--b' } },
      lastOperation: {
        type: 'Create',
        state: 'Succeeded',
        progress: 100,
        lastUpdateTime: '2024-01-01T10:00:05Z',
        description: 'Successfully reconciled OperatingSystemConfig',
      },
      observedGeneration: 1,
    });
    expect(oscReadiness(written as OperatingSystemConfig, live as OperatingSystemConfig)).to.deep.equal({
      ready: true,
    });
    const secret = client.secrets.get('shoot--a--b/osc-result-pool-init')!;
    expect(Buffer.from(secret.data!.cloud_config!, 'base64').toString('utf8')).to.equal(
      renderUserData(written as OperatingSystemConfig),
    );
    expect(secret.metadata?.ownerReferences).to.deep.equal([
      {
        apiVersion: 'extensions.gardener.cloud/v1alpha1',
        kind: 'OperatingSystemConfig',
        name: 'pool-init',
        uid: 'uid-1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(events).to.deep.equal([
      { type: 'Normal', reason: 'Reconciled', message: 'Successfully reconciled OperatingSystemConfig' },
    ]);

    client.calls.length = 0;
    expect(await run()).to.equal(undefined);
    expect(client.writes(), 'a reconciled OSC costs no write').to.deep.equal([]);
  });

  it('a reconcile OSC gets command, units and files; an unchanged secret is not rewritten', async () => {
    const { client, run } = setup();
    client.put(
      osc({
        metadata: { name: 'pool-original' },
        spec: { purpose: 'reconcile', reloadConfigFilePath: '/var/lib/x/cloud_config' },
      }),
    );
    await run('pool-original');
    const live = client.oscs.get('shoot--a--b/pool-original')!;
    expect(live.status).to.deep.include({
      command: '/usr/bin/env bash /var/lib/x/cloud_config',
      units: ['a.service'],
      files: ['/etc/a'],
    });
    // a new request with the same spec: status rewritten, the secret left as it is
    client.put({
      ...live,
      metadata: { ...live.metadata, annotations: { 'gardener.cloud/operation': 'reconcile' } },
    });
    client.calls.length = 0;
    await run('pool-original');
    expect(client.writes().map((c) => `${c.verb} ${c.what.split(' ').slice(0, 2).join(' ')}`)).to.deep.equal([
      'patch-status osc pool-original',
      'patch osc pool-original',
    ]);
  });

  it('an undecodable OSC gets an Error status naming the field, a Warning event, and is retried', async () => {
    const { client, events, run } = setup();
    client.put(
      osc({ spec: { files: [{ path: 'etc/relative', content: { inline: { encoding: '', data: '' } } }] } }),
    );
    let thrown: unknown;
    await run().catch((e) => {
      thrown = e;
    });
    expect(thrown).to.be.instanceOf(Error);
    const live = client.oscs.get('shoot--a--b/pool-init')!;
    expect(live.status?.lastOperation).to.deep.include({ type: 'Create', state: 'Error', progress: 50 });
    const description = (live.status?.lastError as { description: string } | undefined)?.description ?? '';
    expect(description).to.match(/^Error reconciling OperatingSystemConfig: /);
    expect(description).to.include('spec.files[0].path');
    expect(live.metadata?.annotations?.['gardener.cloud/operation'], 'kept until it succeeds').to.equal(
      'reconcile',
    );
    expect(events.map((e) => [e.type, e.reason])).to.deep.equal([['Warning', 'CreateFailed']]);
    expect(events[0]!.message).to.include('spec.files[0].path');
    expect(decide(live), 'the retry acts again').to.deep.include({
      action: 'reconcile',
      operation: 'Create',
    });
  });

  it('secretRef files are read from seed secrets in the OSC namespace; a missing one names the field', async () => {
    const { client, run } = setup();
    const withRef = osc({
      spec: {
        files: [{ path: '/etc/ca.crt', content: { secretRef: { name: 'ca', dataKey: 'bundle.crt' } } }],
      },
    });
    client.put(withRef);
    const error = await run().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.include('spec.files[0].content.secretRef');

    client.secrets.set('shoot--a--b/ca', {
      metadata: { name: 'ca' },
      data: { 'bundle.crt': b64('CA DATA') },
    });
    await run();
    const secret = client.secrets.get('shoot--a--b/osc-result-pool-init')!;
    const expected = renderUserData(
      await inlineSecretRefs(withRef as OperatingSystemConfig, async () => Buffer.from('CA DATA')),
    );
    expect(Buffer.from(secret.data!.cloud_config!, 'base64').toString('utf8')).to.equal(expected);
    expect(client.oscs.get('shoot--a--b/pool-init')!.status?.lastError).to.equal(undefined);
  });

  it('a conflict when removing the annotation reads the object again instead of failing', async () => {
    const { client, run } = setup();
    client.put(osc({}));
    client.conflictOnAnnotationRemoval = true;
    expect(await run()).to.deep.equal({ requeueAfterMs: CONFLICT_RETRY_MS });
    expect(client.oscs.get('shoot--a--b/pool-init')!.metadata?.annotations).to.have.property(
      'gardener.cloud/operation',
    );
    expect(await run()).to.equal(undefined);
    expect(client.oscs.get('shoot--a--b/pool-init')!.metadata?.annotations).to.not.have.property(
      'gardener.cloud/operation',
    );
  });

  it('deletion removes the result secret, then the finalizer', async () => {
    const { client, run } = setup();
    client.put(osc({}));
    await run();
    const live = client.oscs.get('shoot--a--b/pool-init')!;
    client.put({ ...live, metadata: { ...live.metadata, deletionTimestamp: TIMESTAMP } });
    await run();
    expect(client.secrets.has('shoot--a--b/osc-result-pool-init')).to.equal(false);
    expect(client.oscs.has('shoot--a--b/pool-init'), 'finalizer removed, object gone').to.equal(false);
  });

  it('migration records Migrate, drops its finalizer and the annotation, keeps the secret', async () => {
    const { client, run } = setup();
    client.put(osc({}));
    await run();
    const live = client.oscs.get('shoot--a--b/pool-init')!;
    client.put({
      ...live,
      metadata: { ...live.metadata, annotations: { 'gardener.cloud/operation': 'migrate' } },
    });
    await run();
    const migrated = client.oscs.get('shoot--a--b/pool-init')!;
    expect(migrated.metadata?.finalizers).to.deep.equal([]);
    expect(migrated.metadata?.annotations).to.deep.equal({});
    expect(migrated.status?.lastOperation).to.deep.include({ type: 'Migrate', state: 'Succeeded' });
    expect(client.secrets.has('shoot--a--b/osc-result-pool-init')).to.equal(true);
    client.calls.length = 0;
    await run();
    expect(client.writes(), 'a migrated OSC is left alone').to.deep.equal([]);
  });

  it('an OSC of another type is not touched', async () => {
    const { client, run } = setup('gardenlinux');
    client.put(osc({}));
    await run();
    expect(client.writes()).to.deep.equal([]);
  });
});
