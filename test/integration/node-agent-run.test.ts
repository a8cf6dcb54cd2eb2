/**
 * `gardener-node-agent run` as a process against a real API server: it applies its OSC, reports
 * ready, keeps its lease, and stops with exit 0 on SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { sha256Hex, stringifyYaml } from '../../api/index.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { writeImages } from '../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1, yamlOf } from '../../hack/landscape/ntv18-fixtures.js';
import { startFakeKubelet } from '../node-agent/support/fake-kubelet.js';
import { createOscSecretAndNode } from './node-agent-objects.js';

describe('gardener-node-agent run against a real API server', function () {
  this.timeout(120_000);
  let env: Envtest;
  let core: CoreV1Api;
  let dir: string;
  let agent: ChildProcess | undefined;
  const suffix = Date.now().toString(36);
  const nodeName = `run-node-${suffix}`;
  const secretName = `gardener-node-agent-run-${suffix}`;

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'shoot' });
    requireClusterScopedWrites(env);
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    dir = mkdtempSync(join(tmpdir(), 'gna-run-'));
  });

  after(async () => {
    agent?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await core?.deleteNode({ name: nodeName }).catch(() => undefined);
    await core?.deleteNamespacedSecret({ name: secretName, namespace: 'kube-system' }).catch(() => undefined);
  });

  it('applies its OSC, becomes ready, renews its lease and exits 0 on SIGTERM', async () => {
    const root = join(dir, 'root');
    const images = join(dir, 'images');
    mkdirSync(root);
    writeImages(images, IMAGE_FILES);
    const yaml = yamlOf(oscV1());
    await createOscSecretAndNode(core, { secretName, nodeName, oscYaml: yaml });
    await core.createNamespacedSecret({
      namespace: 'kube-system',
      body: {
        metadata: { name: `agent-token-${suffix}` },
        data: { token: Buffer.from('t0k3n').toString('base64') },
      },
    });
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      stringifyYaml({
        apiVersion: 'nodeagent.config.gardener.cloud/v1alpha1',
        kind: 'NodeAgentConfiguration',
        clientConnection: { kubeconfig: env.kubeconfigFile },
        apiServer: { server: env.server },
        controllers: {
          operatingSystemConfig: { secretName, kubernetesVersion: '1.30.2', syncJitterPeriod: '0s' },
          token: {
            syncConfigs: [
              { secretName: 'gardener-node-agent', path: '/var/lib/gardener-node-agent/credentials/token' },
              { secretName: `agent-token-${suffix}`, path: '/var/lib/extra/token' },
            ],
          },
        },
      }),
    );
    const record = join(dir, 'systemd.jsonl');
    const cli = join(import.meta.dirname, '../../hack/node-agent-doubles/main.ts');
    const args = [
      '--import',
      'tsx',
      cli,
      'run',
      '--config',
      config,
      '--root',
      root,
      `--systemd=record:${record}`,
    ];
    args.push('--images', images, '--node-name', nodeName, '--health-port', '0', '--metrics-port', '0');
    agent = spawn(process.execPath, args, {
      env: { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    agent.stdout?.on('data', (d) => (logs += d));
    agent.stderr?.on('data', (d) => (logs += d));
    const exited = new Promise<number | null>((r) => agent!.once('exit', (code) => r(code)));

    await eventually('the node checksum', async () => {
      const node = await core.readNode({ name: nodeName });
      return node.metadata?.annotations?.['checksum/cloud-config-data'] === sha256Hex(yaml);
    });
    expect(readFileSync(join(root, 'example/file'), 'utf8')).to.equal('file1');
    // the v1.91.4 contract: core/v1 events of the agent's component, no SystemdUnitsReady
    const applied = await eventually('the OSCApplied event', async () =>
      (await core.listNamespacedEvent({ namespace: 'default' })).items.find(
        (e) => e.involvedObject.name === nodeName && e.reason === 'OSCApplied',
      ),
    );
    expect(applied.source?.component).to.equal('gardener-node-agent');
    expect(applied.action).to.equal(undefined);
    const conditions = (await core.readNode({ name: nodeName })).status?.conditions ?? [];
    expect(conditions.map((c) => c.type)).to.not.include('SystemdUnitsReady');
    expect(readFileSync(record, 'utf8')).to.contain('{"op":"restart","unit":"unit1"}');
    await eventually(
      'the extra token file',
      () => readFileSync(join(root, 'var/lib/extra/token'), 'utf8') === 't0k3n',
    );
    expect(statSync(join(root, 'var/lib/extra/token')).mode & 0o7777).to.equal(0o600);
    const coordination = env.kubeConfig.makeApiClient(CoordinationV1Api);
    await eventually('the lease', async () =>
      Boolean(
        await coordination.readNamespacedLease({
          name: `gardener-node-agent-${nodeName}`,
          namespace: 'kube-system',
        }),
      ),
    );
    const health = /"health":"(http:[^"]+)"/.exec(logs)?.[1];
    expect(health, logs).to.be.a('string');
    await eventually('readiness', async () => (await fetch(`${health}/readyz`)).status === 200);
    // the restart annotation: listed units restarted, the annotation removed, the agent itself last
    await core.patchNode(
      {
        name: nodeName,
        body: {
          metadata: {
            annotations: {
              'worker.gardener.cloud/restart-systemd-services': 'gardener-node-agent,foo,bar.service',
            },
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await eventually('the restart annotation handled', async () => {
      const node = await core.readNode({ name: nodeName });
      return (
        node.metadata?.annotations?.['worker.gardener.cloud/restart-systemd-services'] === undefined &&
        readFileSync(record, 'utf8').includes('"unit":"gardener-node-agent.service"')
      );
    });
    const ops = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { op: string; unit?: string });
    const tail = ops.slice(-3).map((o) => `${o.op} ${o.unit}`);
    expect(tail).to.deep.equal([
      'restart foo.service',
      'restart bar.service',
      'restart gardener-node-agent.service',
    ]);
    agent.kill('SIGTERM');
    expect(await exited, logs).to.equal(0);
    agent = undefined;
  });

  it('serves its own metrics and health-checks the kubelet at --kubelet-healthz-url', async () => {
    const root = join(dir, 'metrics-root');
    mkdirSync(join(root, 'var/lib/extra'), { recursive: true });
    // a JWT no secret overwrites: its `exp` is one hour away
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const payload = Buffer.from(JSON.stringify({ exp })).toString('base64url');
    writeFileSync(join(root, 'var/lib/extra/jwt'), `e30.${payload}.c2ln`);
    const kubelet = await startFakeKubelet();
    const config = join(dir, 'metrics-config.yaml');
    writeFileSync(
      config,
      stringifyYaml({
        apiVersion: 'nodeagent.config.gardener.cloud/v1alpha1',
        kind: 'NodeAgentConfiguration',
        clientConnection: { kubeconfig: env.kubeconfigFile },
        apiServer: { server: env.server },
        controllers: {
          operatingSystemConfig: { secretName: `${secretName}-absent`, kubernetesVersion: '1.30.2' },
          token: {
            syncConfigs: [
              { secretName: 'gardener-node-agent', path: '/var/lib/gardener-node-agent/credentials/token' },
              { secretName: `absent-${suffix}`, path: '/var/lib/extra/jwt' },
            ],
          },
        },
      }),
    );
    const cli = join(import.meta.dirname, '../../hack/node-agent-doubles/main.ts');
    const args = ['--import', 'tsx', cli, 'run', '--config', config, '--root', root];
    args.push(`--systemd=record:${join(dir, 'metrics-systemd.jsonl')}`, '--node-name', nodeName);
    args.push('--health-port', '0', '--metrics-port', '0', '--kubelet-healthz-url', kubelet.url);
    agent = spawn(process.execPath, args, {
      env: { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    agent.stdout?.on('data', (d) => (logs += d));
    agent.stderr?.on('data', (d) => (logs += d));
    const exited = new Promise<number | null>((r) => agent!.once('exit', (code) => r(code)));
    try {
      const metricsUrl = await eventually(
        'the metrics URL',
        () => /"metrics":"(http:[^"]+)"/.exec(logs)?.[1],
      );
      await eventually('a kubelet health check', () => kubelet.hits > 0);
      const text = await (await fetch(`${metricsUrl}/metrics`)).text();
      for (const name of [
        'gardener_node_agent_osc_apply_duration_seconds',
        'gardener_node_agent_osc_applies_total',
        'gardener_node_agent_unit_restarts_total',
        'gardener_node_agent_health_check_failures_total',
        'gardener_node_agent_health_check_restarts_total',
        'gardener_node_agent_token_expires_in_seconds',
      ]) {
        expect(text).to.contain(`# TYPE ${name} `);
      }
      const left = /gardener_node_agent_token_expires_in_seconds\{path="\/var\/lib\/extra\/jwt"\} (\S+)/.exec(
        text,
      );
      expect(Number(left?.[1])).to.be.within(3500, 3600);
      expect(text).to.contain('controller_runtime_reconcile_total{controller="health-check"');
      expect(logs).to.contain('"containerdHealthCheck":"off"');
    } finally {
      agent.kill('SIGTERM');
      expect(await exited, logs).to.equal(0);
      agent = undefined;
      await kubelet.close();
    }
  });
});
