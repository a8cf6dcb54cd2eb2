/**
 * The os-local reference OS extension against a real kube-apiserver (seed envtest, our CRDs):
 * it reconciles the OSCs the renderer produces (both purposes) until gardenlet's Wait
 * (`oscReadiness`) says ready, reconciles spec changes again, leaves other types alone, does not
 * loop on its own writes, reports bad OSCs by field, and cleans up on deletion.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1Secret,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import {
  decodeCluster,
  type OperatingSystemConfig,
  parseRfc3339,
  parseYaml,
  TolerantOsc,
} from '../../api/index.js';
import { renderNodeConfiguration } from '../../charts/node-configuration.js';
import { RenderValuesSchema } from '../../charts/values/render-values.js';
import { inlineSecretRefs } from '../../components/os-local/secret-refs.js';
import { cloudConfigStatus } from '../../components/os-local/status.js';
import { renderUserData } from '../../components/os-local/user-data.js';
import { oscReadiness } from '../../controllers/operatingsystemconfig/osc-readiness.js';
import { startOsLocalController } from '../../controllers/os-local/add.js';
import { KubeOsLocalClient } from '../../controllers/os-local/client.js';
import { FINALIZER } from '../../controllers/os-local/decide.js';
import { createTestNamespace, type Envtest, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { EventRecorder } from '../../runtime/events.js';
import { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { runtimeMetrics } from '../../runtime/metrics.js';

const EXAMPLES = join(import.meta.dirname, '../../examples');
const OSC = {
  group: 'extensions.gardener.cloud',
  version: 'v1alpha1',
  plural: 'operatingsystemconfigs',
} as const;
const mergePatch = () => setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** The seed OSCs gardenlet renders for examples/cluster.yaml + examples/values.yaml, in `namespace`. */
function renderedOscs(namespace: string): OperatingSystemConfig[] {
  const decoded = decodeCluster(parseYaml(readFileSync(join(EXAMPLES, 'cluster.yaml'), 'utf8')));
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
  const values = RenderValuesSchema.parse(parseYaml(readFileSync(join(EXAMPLES, 'values.yaml'), 'utf8')));
  const { seed } = renderNodeConfiguration({
    cluster: decoded.value,
    values,
    useGardenerNodeAgent: true,
    legacyNodes: false,
    now: parseRfc3339('2024-01-01T00:00:00Z'),
  });
  return (
    JSON.parse(
      JSON.stringify(seed.filter((o) => o.kind === 'OperatingSystemConfig')),
    ) as OperatingSystemConfig[]
  ).map((o) => ({ ...o, metadata: { ...o.metadata, namespace } }));
}

function decode(raw: unknown): OperatingSystemConfig {
  return TolerantOsc.OperatingSystemConfig.parse(raw);
}

const utf8 = (b64: string | undefined) => Buffer.from(b64 ?? '', 'base64').toString('utf8');

describe('os-local reference OS extension against a real API server', function () {
  this.timeout(180_000);
  let env: Envtest;
  let core: CoreV1Api;
  let custom: CustomObjectsApi;
  let ns: string;
  const stop = new AbortController();
  let controllers: { stopped(): Promise<void> }[] = [];

  /** The live object as the API server returns it (not decoded: it may be invalid on purpose). */
  const getRaw = async (name: string): Promise<OperatingSystemConfig | undefined> => {
    try {
      return (await custom.getNamespacedCustomObject({
        ...OSC,
        namespace: ns,
        name,
      })) as OperatingSystemConfig;
    } catch (e) {
      if (e instanceof ApiException && e.code === 404) return undefined;
      throw e;
    }
  };
  const getOsc = async (name: string): Promise<OperatingSystemConfig | undefined> => {
    const raw = await getRaw(name);
    return raw && decode(raw);
  };
  const getSecret = async (name: string): Promise<V1Secret | undefined> =>
    core.readNamespacedSecret({ namespace: ns, name }).catch((e) => {
      if (e instanceof ApiException && e.code === 404) return undefined;
      throw e;
    });
  const create = async (osc: OperatingSystemConfig): Promise<OperatingSystemConfig> =>
    (await custom.createNamespacedCustomObject({
      ...OSC,
      namespace: ns,
      body: osc,
    })) as OperatingSystemConfig;
  const patch = async (name: string, body: unknown): Promise<OperatingSystemConfig> =>
    decode(await custom.patchNamespacedCustomObject({ ...OSC, namespace: ns, name, body }, mergePatch()));
  const ready = (written: OperatingSystemConfig) =>
    eventually(`OperatingSystemConfig ${written.metadata.name} ready`, async () => {
      const live = await getOsc(written.metadata.name ?? '');
      return live && oscReadiness(written, live).ready ? live : undefined;
    });

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'seed' });
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    ns = await createTestNamespace(env, 'os-local');
    const metrics = runtimeMetrics(new Registry());
    const cache = new ClusterCache({ name: 'seed', http: new KubeHttp(env.kubeConfig) });
    const controller = startOsLocalController(
      {
        cache,
        client: new KubeOsLocalClient(new KubeClient(cache.http)),
        type: 'gardenlinux',
        namespaces: [ns],
        metrics,
        recorder: new EventRecorder({ http: new KubeHttp(env.kubeConfig), component: 'os-local' }),
      },
      stop.signal,
    );
    cache.start(stop.signal);
    controllers.push(controller);
    await controller.synced();
  });

  after(async () => {
    stop.abort();
    await Promise.all(controllers.map((c) => c.stopped()));
    controllers = [];
    if (!core) return;
    // no garbage collector or namespace controller runs: remove everything by hand
    const list = (await custom.listNamespacedCustomObject({ ...OSC, namespace: ns })) as {
      items: OperatingSystemConfig[];
    };
    for (const o of list.items) {
      const name = o.metadata.name ?? '';
      await custom
        .patchNamespacedCustomObject(
          { ...OSC, namespace: ns, name, body: { metadata: { finalizers: null } } },
          mergePatch(),
        )
        .catch(() => undefined);
      await custom.deleteNamespacedCustomObject({ ...OSC, namespace: ns, name }).catch(() => undefined);
    }
    await core.deleteCollectionNamespacedSecret({ namespace: ns }).catch(() => undefined);
    await core.deleteCollectionNamespacedEvent({ namespace: ns }).catch(() => undefined);
    await core.deleteNamespace({ name: ns }).catch(() => undefined);
  });

  it('reconciles the renderer OSCs of its type (both purposes) until gardenlet would see them ready', async () => {
    const oscs = renderedOscs(ns);
    expect(oscs.map((o) => `${o.spec.type}/${o.spec.purpose}`)).to.include.members([
      'gardenlinux/provision',
      'gardenlinux/reconcile',
      'ubuntu/provision',
      'ubuntu/reconcile',
    ]);
    for (const o of oscs) await create(o);

    for (const written of oscs.filter((o) => o.spec.type === 'gardenlinux')) {
      const name = written.metadata.name ?? '';
      const live = await ready(written);
      expect(live.metadata.finalizers).to.deep.equal([FINALIZER]);
      expect(live.metadata.annotations, 'operation removed, timestamp kept').to.deep.equal({
        'gardener.cloud/timestamp': '2024-01-01T00:00:00Z',
      });
      const status = live.status!;
      expect(status.observedGeneration).to.equal(live.metadata.generation);
      expect(status.lastError).to.equal(undefined);
      expect(status.lastOperation).to.deep.include({ type: 'Create', state: 'Succeeded', progress: 100 });
      expect(status.cloudConfig).to.deep.equal({ secretRef: { name: `osc-result-${name}`, namespace: ns } });
      const expected = cloudConfigStatus(written);
      expect(status.command).to.equal(expected.command);
      expect(status.units).to.deep.equal(expected.units);
      expect(status.files).to.deep.equal(expected.files);
      if (written.spec.purpose === 'reconcile')
        expect(status.units).to.include('gardener-node-agent.service');

      const secret = await getSecret(`osc-result-${name}`);
      expect(utf8(secret?.data?.cloud_config)).to.equal(renderUserData(written));
      expect(secret?.metadata?.ownerReferences).to.deep.equal([
        {
          apiVersion: 'extensions.gardener.cloud/v1alpha1',
          kind: 'OperatingSystemConfig',
          name,
          uid: live.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }

    for (const written of oscs.filter((o) => o.spec.type === 'ubuntu')) {
      const live = (await getOsc(written.metadata.name ?? ''))!;
      expect(live.status, 'another type is not touched').to.equal(undefined);
      expect(live.metadata.finalizers).to.equal(undefined);
      expect(live.metadata.annotations?.['gardener.cloud/operation']).to.equal('reconcile');
      expect(await getSecret(`osc-result-${written.metadata.name}`)).to.equal(undefined);
    }
  });

  it('does not loop on its own writes', async () => {
    const name = renderedOscs(ns).find((o) => o.spec.type === 'gardenlinux')!.metadata.name ?? '';
    const before = (await getOsc(name))!.metadata.resourceVersion;
    await sleep(2000);
    expect((await getOsc(name))!.metadata.resourceVersion).to.equal(before);
  });

  it('reconciles a spec change (new generation) and a new request from gardenlet again', async () => {
    const written = renderedOscs(ns).find(
      (o) => o.spec.type === 'gardenlinux' && o.spec.purpose === 'reconcile',
    )!;
    const name = written.metadata.name ?? '';
    const extra = { path: '/etc/os-local-test', content: { inline: { encoding: '', data: 'changed' } } };
    const changed = await patch(name, { spec: { files: [...(written.spec.files ?? []), extra] } });
    expect(changed.metadata.generation).to.equal(2);
    const live = await eventually('generation 2 observed', async () => {
      const o = await getOsc(name);
      return o?.status?.observedGeneration === 2 ? o : undefined;
    });
    expect(live.status?.files).to.include('/etc/os-local-test');
    const secret = await getSecret(`osc-result-${name}`);
    expect(utf8(secret?.data?.cloud_config)).to.equal(renderUserData({ ...written, spec: changed.spec }));

    // gardenlet's deploy: the operation annotation with a new timestamp, then Wait
    const timestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const requested = await patch(name, {
      metadata: {
        annotations: { 'gardener.cloud/operation': 'reconcile', 'gardener.cloud/timestamp': timestamp },
      },
    });
    const done = await ready(requested);
    expect(done.metadata.annotations).to.not.have.property('gardener.cloud/operation');
    expect(done.status?.lastOperation?.type).to.equal('Reconcile');
  });

  it('reports an invalid OSC by field (Error status, Warning event) and recovers once it is fixed', async () => {
    const base = renderedOscs(ns).find(
      (o) => o.spec.type === 'gardenlinux' && o.spec.purpose === 'provision',
    )!;
    const bad: OperatingSystemConfig = {
      ...base,
      metadata: { ...base.metadata, name: 'invalid-init' },
      spec: {
        ...base.spec,
        files: [{ path: 'etc/relative', content: { inline: { encoding: '', data: 'x' } } }],
      },
    };
    const written = await create(bad);
    const failed = await eventually('the error status', async () => {
      const o = await getRaw('invalid-init');
      return o?.status?.lastError ? o : undefined;
    });
    expect(failed.status?.lastOperation).to.deep.include({ type: 'Create', state: 'Error' });
    expect(failed.status?.lastError?.description).to.include('spec.files[0].path');
    expect(oscReadiness(written, failed)).to.deep.include({ ready: false, retriable: false });
    const warning = await eventually('the Warning event', async () => {
      const events = await core.listNamespacedEvent({
        namespace: ns,
        fieldSelector: 'involvedObject.name=invalid-init',
      });
      return events.items.find((e) => e.type === 'Warning');
    });
    expect(warning.reason).to.equal('CreateFailed');
    expect(warning.message).to.include('spec.files[0].path');

    const fixed = await patch('invalid-init', {
      spec: { files: [{ path: '/etc/absolute', content: { inline: { encoding: '', data: 'x' } } }] },
    });
    // Readiness as gardenlet waits for it: the status write comes before the operation annotation
    // is removed, so a read in between sees Succeeded but not yet ready.
    const live = await ready({ ...written, metadata: { ...written.metadata, annotations: {} } });
    expect(live.status?.observedGeneration).to.equal(fixed.metadata.generation);
    expect(live.status?.lastOperation?.state).to.equal('Succeeded');
    expect(live.status?.lastError).to.equal(undefined);
  });

  it('reads secretRef files from seed secrets in the OSC namespace', async () => {
    const base = renderedOscs(ns).find(
      (o) => o.spec.type === 'gardenlinux' && o.spec.purpose === 'provision',
    )!;
    await core.createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: { name: 'ca', namespace: ns },
        data: { 'bundle.crt': Buffer.from('CA').toString('base64') },
      },
    });
    const written: OperatingSystemConfig = {
      ...base,
      metadata: { ...base.metadata, name: 'with-secret-ref-init' },
      spec: {
        ...base.spec,
        files: [
          ...(base.spec.files ?? []),
          { path: '/etc/ssl/ca.crt', content: { secretRef: { name: 'ca', dataKey: 'bundle.crt' } } },
        ],
      },
    };
    await create(written);
    await ready(written);
    const secret = await getSecret('osc-result-with-secret-ref-init');
    const inlined = await inlineSecretRefs(written, async () => Buffer.from('CA'));
    expect(utf8(secret?.data?.cloud_config)).to.equal(renderUserData(inlined));
  });

  it('watches all namespaces when given none', async () => {
    const type = `os-local-test-${randomBytes(3).toString('hex')}`;
    const local = new AbortController();
    const cache = new ClusterCache({ name: 'seed', http: new KubeHttp(env.kubeConfig) });
    const controller = startOsLocalController(
      { cache, client: new KubeOsLocalClient(new KubeClient(cache.http)), type },
      local.signal,
    );
    cache.start(local.signal);
    try {
      await controller.synced();
      const base = renderedOscs(ns)[0]!;
      const written: OperatingSystemConfig = {
        ...base,
        metadata: { ...base.metadata, name: 'other-type-init' },
        spec: { ...base.spec, type },
      };
      await create(written);
      await ready(written);
    } finally {
      local.abort();
      await controller.stopped();
    }
  });

  it('deletion removes the result secret, then the finalizer', async () => {
    const name = renderedOscs(ns).find((o) => o.spec.type === 'gardenlinux')!.metadata.name ?? '';
    expect(await getSecret(`osc-result-${name}`)).to.not.equal(undefined);
    await custom.deleteNamespacedCustomObject({ ...OSC, namespace: ns, name });
    await eventually('the OSC gone', async () => (await getOsc(name)) === undefined);
    expect(await getSecret(`osc-result-${name}`)).to.equal(undefined);
  });
});
