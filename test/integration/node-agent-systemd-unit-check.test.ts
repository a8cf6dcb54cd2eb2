/**
 * The `SystemdUnitsReady` condition against a real API server (gardener v1.150.0
 * pkg/nodeagent/controller/systemdunitcheck/reconciler.go): the check of a v1.150.0 node reads
 * the units of `last-applied-osc.yaml`, writes `False UnhealthyUnits` naming a failed unit, and
 * `True AllUnitsHealthy` once it runs again, keeping the kubelet's own conditions.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Node } from '@kubernetes/client-node';
import { expect } from 'chai';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { addSystemdUnitCheckController } from '../../node-agent/controllers/systemdunitcheck/add.js';
import type { UnitStatus } from '../../node-agent/systemd/unit-status.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';

const LAST_APPLIED = `apiVersion: extensions.gardener.cloud/v1alpha1
kind: OperatingSystemConfig
metadata:
  name: osc
spec:
  units:
  - name: kubelet.service
    enable: true
    content: '#kubelet'
  - name: worker.service
    enable: true
    content: '#worker'
`;

describe('node agent SystemdUnitsReady condition against a real API server', function () {
  this.timeout(120_000);
  let env: Envtest;
  let core: CoreV1Api;
  let root: string;
  const stop = new AbortController();
  const nodeName = `node-units-${Date.now().toString(36)}`;
  const states = new Map<string, string>([
    ['kubelet.service', 'active'],
    ['worker.service', 'failed'],
  ]);
  const systemd = {
    unitStatus: (unit: string): Promise<UnitStatus> =>
      Promise.resolve({
        loadState: 'loaded',
        activeState: states.get(unit) ?? 'inactive',
        subState: states.get(unit) === 'active' ? 'running' : 'failed',
        invocationId: '',
        activeEnterTimestampMonotonic: 0,
        inactiveEnterTimestampMonotonic: 0,
        inactiveExitTimestampMonotonic: 0,
      }),
  };

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'shoot' });
    requireClusterScopedWrites(env);
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    root = mkdtempSync(join(tmpdir(), 'gna-root-'));
    mkdirSync(join(root, 'var/lib/gardener-node-agent'), { recursive: true });
    writeFileSync(join(root, 'var/lib/gardener-node-agent/last-applied-osc.yaml'), LAST_APPLIED);
    await core.createNode({
      body: { metadata: { name: nodeName, labels: { 'kubernetes.io/hostname': nodeName } } },
    });
    const ready = { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok' };
    await core.patchNodeStatus(
      { name: nodeName, body: { status: { conditions: [ready] } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  });

  after(async () => {
    stop.abort();
    rmSync(root, { recursive: true, force: true });
    await core?.deleteNode({ name: nodeName }).catch(() => undefined);
  });

  it('reports a failed unit as False UnhealthyUnits and True AllUnitsHealthy after it recovers', async () => {
    let node: V1Node | undefined;
    const http = new KubeHttp(env.kubeConfig);
    const refresh = async () => {
      node = await core.readNode({ name: nodeName });
      return node;
    };
    await refresh();
    addSystemdUnitCheckController(
      {
        root,
        systemd,
        client: new KubeClient(http),
        node: () => node,
        syncPeriod: 0.5e9,
        stuckThreshold: 300e9,
      },
      stop.signal,
    );
    const condition = async () =>
      (await refresh()).status?.conditions?.find((c) => c.type === 'SystemdUnitsReady');
    const failed = await eventually('the condition False', async () => {
      const c = await condition();
      return c?.status === 'False' ? c : undefined;
    });
    expect(failed).to.include({ reason: 'UnhealthyUnits', message: 'worker.service: failed' });
    states.set('worker.service', 'active');
    const healthy = await eventually('the condition True', async () => {
      const c = await condition();
      return c?.status === 'True' ? c : undefined;
    });
    expect(healthy).to.include({
      reason: 'AllUnitsHealthy',
      message: 'All systemd units from the operating system config are running as expected.',
    });
    expect(healthy.lastTransitionTime!.getTime()).to.be.at.least(failed.lastTransitionTime!.getTime());
    const ready = node?.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready, "the kubelet's condition is kept").to.include({ status: 'True', reason: 'KubeletReady' });
  });
});
