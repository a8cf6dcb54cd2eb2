/**
 * The node agent as its own process obtaining its per-node identity, as systemd starts it on a
 * migrating node: nothing else runs yet while it waits for its certificate request to be approved
 * and signed (the probes start after), so that wait alone must keep the process alive.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { LABEL, PATH, stringifyYaml } from '../../api/index.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { type NodeIdentityLandscape, nodeIdentityLandscape } from './node-identity-landscape.js';

describe('node agent process with a per-node identity', function () {
  this.timeout(120_000);
  let l: NodeIdentityLandscape;
  let dir: string;
  let agent: ChildProcess | undefined;
  const node = `identity-process-${Date.now().toString(36)}`;

  before(async function () {
    this.timeout(20 * 60_000);
    l = await nodeIdentityLandscape();
    dir = mkdtempSync(join(tmpdir(), 'gna-identity-process-'));
  });

  after(async () => {
    agent?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await l?.shoot.kubeConfig
      .makeApiClient(CoreV1Api)
      .deleteNode({ name: node })
      .catch(() => undefined);
  });

  it('waits for its certificate with nothing else running, then goes on with its identity', async () => {
    await l.shoot.kubeConfig.makeApiClient(CoreV1Api).createNode({
      body: {
        metadata: { name: node, labels: { [LABEL.hostname]: node, [LABEL.workerPool]: 'cpu-worker' } },
      },
    });
    // a migrating node: the legacy downloader's token, no identity yet
    const root = join(dir, 'root');
    const token = (
      await l.shoot.kubeConfigForServiceAccount('kube-system', 'cloud-config-downloader')
    ).getCurrentUser()!.token!;
    mkdirSync(join(root, PATH.downloaderToken, '..'), { recursive: true });
    writeFileSync(join(root, PATH.downloaderToken), token, { mode: 0o600 });
    const cluster = l.shoot.kubeConfig.getCurrentCluster()!;
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      stringifyYaml({
        apiVersion: 'nodeagent.config.gardener.cloud/v1alpha1',
        kind: 'NodeAgentConfiguration',
        clientConnection: { kubeconfig: PATH.nodeAgentKubeconfig },
        apiServer: { server: cluster.server, caBundle: cluster.caData },
        controllers: {
          operatingSystemConfig: { secretName: l.oscSecrets.get('cpu-worker'), kubernetesVersion: '1.30.2' },
          token: { syncConfigs: [] },
        },
      }),
    );
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' };
    delete env.KUBECONFIG;
    agent = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(import.meta.dirname, '../../hack/node-agent-doubles/main.ts'),
        'run',
        '--config',
        config,
        '--root',
        root,
        '--node-name',
        node,
        `--systemd=record:${join(dir, 'systemd.jsonl')}`,
        '--images',
        join(dir, 'images'),
        '--health-port',
        '0',
        '--metrics-port',
        '0',
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let logs = '';
    agent.stdout?.on('data', (d) => (logs += d));
    agent.stderr?.on('data', (d) => (logs += d));
    const exited = new Promise<number | null>((resolve) => agent!.once('exit', (code) => resolve(code)));
    const obtained = eventually(
      'its identity kubeconfig',
      () => existsSync(join(root, PATH.nodeAgentKubeconfig)) && logs.includes('Obtained the node identity'),
      60_000,
    );
    const first = await Promise.race([
      obtained.then(() => 'its identity'),
      exited.then((code) => `an exit with code ${code}`),
    ]);
    expect(first, logs).to.equal('its identity');
    await new Promise((r) => setTimeout(r, 1_000));
    expect(agent.exitCode, `still running with its identity:\n${logs}`).to.equal(null);
    agent.kill('SIGTERM');
    expect(await exited, logs).to.equal(0);
  });
});
