/**
 * The packaged agent against a real API server: the single executable, alone in an empty
 * directory under `env -i` (no node, no node_modules, no PATH), authenticates with its token file
 * and the config's CA bundle (the production credentials path), applies its OSC, stamps its Node,
 * renews its Lease and exits 0 on SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { PATH, sha256Hex, stringifyYaml } from '../../api/index.js';
import { BINARY_NAME, buildNodeAgent } from '../../hack/build-node-agent.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { writeImages } from '../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1, yamlOf } from '../../hack/landscape/ntv18-fixtures.js';
import { fakeSystemctl } from '../node-agent/support/fake-systemctl.js';
import { createOscSecretAndNode } from './node-agent-objects.js';

describe('the gardener-node-agent single executable against a real API server', function () {
  this.timeout(180_000);
  let env: Envtest;
  let core: CoreV1Api;
  let dir: string;
  let agent: ChildProcess | undefined;
  const suffix = Date.now().toString(36);
  const nodeName = `binary-node-${suffix}`;
  const secretName = `gardener-node-agent-binary-${suffix}`;

  before(async function () {
    this.timeout(20 * 60_000);
    dir = mkdtempSync(join(tmpdir(), 'gna-binary-'));
    const [started, build] = await Promise.all([
      // its own API server: on the shared shoot, another suite's `gardener-node-agent` token secret
      // would rightly replace this agent's token file with a token of fewer rights
      startEnvtest({ name: 'node-agent-binary' }),
      buildNodeAgent({ outDir: join(dir, 'build') }),
    ]);
    env = started;
    requireClusterScopedWrites(env);
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    mkdirSync(join(dir, 'alone'));
    copyFileSync(build.binary, join(dir, 'alone', BINARY_NAME));
  });

  after(() => {
    agent?.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs alone with token-file credentials: applies, stamps the Node, renews its Lease, exits 0 on SIGTERM', async () => {
    const root = join(dir, 'root');
    const images = join(dir, 'images');
    writeImages(images, IMAGE_FILES);
    const yaml = yamlOf(oscV1());
    await createOscSecretAndNode(core, { secretName, nodeName, oscYaml: yaml });
    // the production path: no kubeconfig, the server and CA from the config, the token from its file
    const tokenFile = join(root, PATH.nodeAgentToken);
    mkdirSync(join(tokenFile, '..'), { recursive: true });
    writeFileSync(tokenFile, env.kubeConfig.getCurrentUser()?.token ?? '', { mode: 0o600 });
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      stringifyYaml({
        apiVersion: 'nodeagent.config.gardener.cloud/v1alpha1',
        kind: 'NodeAgentConfiguration',
        apiServer: { server: env.server, caBundle: env.kubeConfig.getCurrentCluster()?.caData },
        controllers: {
          operatingSystemConfig: { secretName, kubernetesVersion: '1.30.2', syncJitterPeriod: '0s' },
          token: {
            syncConfigs: [{ secretName: 'gardener-node-agent', path: PATH.nodeAgentToken }],
          },
        },
      }),
    );
    // the executable knows only systemctl: a stub on PATH logs the calls
    const systemctl = fakeSystemctl(dir);
    const alone = join(dir, 'alone');
    agent = spawn(
      '/usr/bin/env',
      [
        '-i',
        'NODE_AGENT_REFUSE_HOST_ROOT=1',
        `PATH=${systemctl.binDir}:/usr/bin:/bin`,
        `./${BINARY_NAME}`,
        'run',
        '--config',
        config,
        '--root',
        root,
        '--systemd=systemctl',
        '--images',
        images,
        '--node-name',
        nodeName,
        '--health-port',
        '0',
        '--metrics-port',
        '0',
      ],
      { cwd: alone, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let logs = '';
    agent.stdout?.on('data', (d) => (logs += d));
    agent.stderr?.on('data', (d) => (logs += d));
    const exited = new Promise<number | null>((r) => agent!.once('exit', (code) => r(code)));

    const withLogs = (e: Error) => {
      throw new Error(`${e.message}; the agent's log:\n${logs}`);
    };
    await eventually('the node checksum', async () => {
      const node = await core.readNode({ name: nodeName });
      return node.metadata?.annotations?.['checksum/cloud-config-data'] === sha256Hex(yaml);
    }).catch(withLogs);
    expect(readFileSync(join(root, 'example/file'), 'utf8')).to.equal('file1');
    expect(systemctl.calls()).to.include('--job-mode=replace restart -- unit1');
    const coordination = env.kubeConfig.makeApiClient(CoordinationV1Api);
    const renewTime = async () => {
      const lease = await coordination
        .readNamespacedLease({ name: `gardener-node-agent-${nodeName}`, namespace: 'kube-system' })
        .catch(() => undefined);
      return lease?.spec?.renewTime === undefined ? undefined : String(lease.spec.renewTime);
    };
    const first = await eventually('the lease', renewTime).catch(withLogs);
    await eventually('a renewal', async () => ((await renewTime()) ?? first) !== first, 20_000).catch(
      withLogs,
    );
    agent.kill('SIGTERM');
    expect(await exited, logs).to.equal(0);
    agent = undefined;
  });
});
