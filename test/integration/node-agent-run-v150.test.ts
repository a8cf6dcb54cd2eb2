/**
 * `gardener-node-agent run` with a v1.150.0 configuration file (`apiServer.caFile`,
 * `controllers.systemdUnitCheck`), as a process against a real API server: besides applying its
 * OSC it writes the Node condition `SystemdUnitsReady` and records its events through
 * events.k8s.io/v1, as gardener v1.150.0's agent does (pkg/nodeagent/controller/systemdunitcheck,
 * `mgr.GetEventRecorder`), and writes its token files 0640. The v1.91.4 configuration of node-agent-run.test.ts writes neither.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { sha256Hex, stringifyYaml } from '../../api/index.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { writeImages } from '../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1, yamlOf } from '../../hack/landscape/ntv18-fixtures.js';
import { createOscSecretAndNode } from './node-agent-objects.js';

describe('gardener-node-agent run with a v1.150.0 configuration against a real API server', function () {
  this.timeout(120_000);
  let env: Envtest;
  let core: CoreV1Api;
  let dir: string;
  let agent: ChildProcess | undefined;
  const suffix = Date.now().toString(36);
  const nodeName = `run150-node-${suffix}`;
  const secretName = `gardener-node-agent-run150-${suffix}`;

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'shoot' });
    requireClusterScopedWrites(env);
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    dir = mkdtempSync(join(tmpdir(), 'gna-run150-'));
  });

  after(async () => {
    agent?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await core?.deleteNode({ name: nodeName }).catch(() => undefined);
    await core?.deleteNamespacedSecret({ name: secretName, namespace: 'kube-system' }).catch(() => undefined);
  });

  it('writes SystemdUnitsReady and records events.k8s.io/v1 events', async () => {
    const root = join(dir, 'root');
    const images = join(dir, 'images');
    mkdirSync(join(root, 'var/lib/gardener-node-agent'), { recursive: true });
    writeImages(images, IMAGE_FILES);
    const ca = env.kubeConfig.getCurrentCluster()?.caData ?? '';
    writeFileSync(join(root, 'var/lib/gardener-node-agent/cluster-ca.crt'), Buffer.from(ca, 'base64'));
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
        apiServer: { server: env.server, caFile: '/var/lib/gardener-node-agent/cluster-ca.crt' },
        controllers: {
          operatingSystemConfig: { secretName, kubernetesVersion: '1.34.2' },
          systemdUnitCheck: { syncPeriod: '15s' },
          token: { syncConfigs: [{ secretName: `agent-token-${suffix}`, path: '/var/lib/extra/token' }] },
        },
      }),
    );
    const cli = join(import.meta.dirname, '../../hack/node-agent-doubles/main.ts');
    const args = ['--import', 'tsx', cli, 'run', '--config', config, '--root', root];
    args.push(`--systemd=record:${join(dir, 'systemd.jsonl')}`, '--images', images, '--node-name', nodeName);
    args.push('--health-port', '0', '--metrics-port', '0');
    agent = spawn(process.execPath, args, {
      env: { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    agent.stdout?.on('data', (d) => (logs += d));
    agent.stderr?.on('data', (d) => (logs += d));
    const exited = new Promise<number | null>((r) => agent!.once('exit', (code) => r(code)));

    const condition = await eventually(
      'the SystemdUnitsReady condition',
      async () => {
        const node = await core.readNode({ name: nodeName });
        if (node.metadata?.annotations?.['checksum/cloud-config-data'] !== sha256Hex(yaml)) return undefined;
        return node.status?.conditions?.find((c) => c.type === 'SystemdUnitsReady');
      },
      60_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${logs}`);
    });
    expect(['AllUnitsHealthy', 'UnhealthyUnits', 'ProgressingUnits']).to.include(condition.reason);
    const eventsApi = env.kubeConfig.makeApiClient(EventsV1Api);
    const applied = await eventually('the OSCApplied event', async () =>
      (await eventsApi.listNamespacedEvent({ namespace: 'default' })).items.find(
        (e) => e.regarding?.name === nodeName && e.reason === 'OSCApplied',
      ),
    );
    expect(applied).to.deep.include({ reportingController: 'operatingsystemconfig', action: 'Reconcile' });
    expect(applied.reportingInstance).to.match(/^operatingsystemconfig-/);
    // token files 0640 (gardener v1.150.0 pkg/nodeagent/controller/token/reconciler.go)
    const token = join(root, 'var/lib/extra/token');
    await eventually('the token file', () => readFileSync(token, 'utf8') === 't0k3n');
    expect(statSync(token).mode & 0o7777).to.equal(0o640);
    agent.kill('SIGTERM');
    expect(await exited, logs).to.equal(0);
    agent = undefined;
  });
});
