/**
 * `run --api-server URL --ca-file FILE`: the agent talks to another API server than the one its
 * config names (many agents on one machine against a local API server), without the config file
 * changing. Checked before anything starts (exit 2); the token credentials use the overrides.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadNodeAgentConfiguration, PATH, stringifyYaml } from '../../../api/index.js';
import { restConfig } from '../../../node-agent/agent/rest-config.js';
import { withApiServerOverrides } from '../../../node-agent/cli/run-command.js';
import { UsageError } from '../../../runtime/cli/exit-codes.js';
import { runCli } from '../support/cli-run.js';
import { useTempDirs } from '../support/harness.js';

const PEM = '-----BEGIN CERTIFICATE-----\nZmFrZSBDQQ==\n-----END CERTIFICATE-----\n';

function configYaml(extra: Record<string, unknown> = {}): string {
  return stringifyYaml({
    apiVersion: 'nodeagent.config.gardener.cloud/v1alpha1',
    kind: 'NodeAgentConfiguration',
    apiServer: {
      server: 'https://api.demo.example.com',
      caBundle: Buffer.from('the config CA').toString('base64'),
    },
    controllers: {
      operatingSystemConfig: { secretName: 'osc', kubernetesVersion: '1.30.2' },
      token: {
        syncConfigs: [
          { secretName: 'gardener-node-agent', path: '/var/lib/gardener-node-agent/credentials/token' },
        ],
      },
    },
    ...extra,
  });
}

function loadConfig(extra: Record<string, unknown> = {}) {
  const loaded = loadNodeAgentConfiguration(configYaml(extra));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.value;
}

describe('gardener-node-agent run: --api-server and --ca-file', () => {
  const tempDir = useTempDirs();

  it('leaves the config alone without the flags', () => {
    const config = loadConfig();
    expect(withApiServerOverrides(config, {}, {})).to.equal(config);
  });

  it('replaces apiServer.server and apiServer.caBundle, the CA as base64 of the file', () => {
    const ca = join(tempDir(), 'ca.crt');
    writeFileSync(ca, PEM);
    const config = loadConfig();
    const overridden = withApiServerOverrides(
      config,
      { apiServer: 'https://127.0.0.1:6443/', caFile: ca },
      {},
    );
    expect(overridden.apiServer).to.deep.equal({
      server: 'https://127.0.0.1:6443',
      caBundle: Buffer.from(PEM).toString('base64'),
    });
    expect(overridden.controllers).to.deep.equal(config.controllers);
    expect(config.apiServer.server, 'the loaded config is not mutated').to.equal(
      'https://api.demo.example.com',
    );
    const serverOnly = withApiServerOverrides(config, { apiServer: 'https://10.0.0.1' }, {});
    expect(serverOnly.apiServer.caBundle).to.equal(config.apiServer.caBundle);
  });

  it('builds the token credentials against the overrides', async () => {
    const root = tempDir();
    mkdirSync(join(root, PATH.nodeAgentToken, '..'), { recursive: true });
    writeFileSync(join(root, PATH.nodeAgentToken), 'token');
    const ca = join(root, 'ca.crt');
    writeFileSync(ca, PEM);
    const config = withApiServerOverrides(
      loadConfig(),
      { apiServer: 'https://127.0.0.1:6443', caFile: ca },
      {},
    );
    const kc = await restConfig(config, root, {});
    expect(kc.getCurrentCluster()?.server).to.equal('https://127.0.0.1:6443');
    expect(kc.options.ca?.toString()).to.equal(PEM);
    expect(kc.options.tokenFile).to.equal(join(root, PATH.nodeAgentToken));
  });

  for (const bad of ['http://127.0.0.1:6443', 'https://127.0.0.1:6443/api', 'not a url', 'https://x?y=1']) {
    it(`rejects --api-server ${JSON.stringify(bad)}`, () => {
      expect(() => withApiServerOverrides(loadConfig(), { apiServer: bad }, {}))
        .to.throw(UsageError)
        .with.property('message')
        .that.contains('--api-server must be an https:// URL');
    });
  }

  it('rejects a CA file that is missing or holds no certificate', () => {
    const dir = tempDir();
    expect(() => withApiServerOverrides(loadConfig(), { caFile: join(dir, 'absent') }, {})).to.throw(
      UsageError,
      /cannot read --ca-file/,
    );
    writeFileSync(join(dir, 'empty'), 'nothing');
    expect(() => withApiServerOverrides(loadConfig(), { caFile: join(dir, 'empty') }, {})).to.throw(
      UsageError,
      /holds no PEM certificate/,
    );
  });

  it('refuses the flags when a kubeconfig is configured (it would win silently)', () => {
    expect(() =>
      withApiServerOverrides(loadConfig(), { apiServer: 'https://127.0.0.1:6443' }, { KUBECONFIG: '/k' }),
    ).to.throw(UsageError, /\$KUBECONFIG/);
    expect(() =>
      withApiServerOverrides(
        loadConfig({ clientConnection: { kubeconfig: '/etc/k' } }),
        { apiServer: 'https://127.0.0.1:6443' },
        {},
      ),
    ).to.throw(UsageError, /clientConnection\.kubeconfig/);
  });

  it('exits 2 before starting on a bad flag, and documents both', async () => {
    const dir = tempDir();
    const config = join(dir, 'config.yaml');
    writeFileSync(config, configYaml());
    const args = ['run', '--config', config, '--root', dir, '--systemd', `record:${join(dir, 'ops')}`];
    const result = await runCli([...args, '--api-server', 'ftp://127.0.0.1'], { KUBECONFIG: '' });
    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('--api-server must be an https:// URL');
    const help = await runCli(['run', '--help']);
    for (const flag of ['--api-server', '--ca-file', 'record-timed:FILE'])
      expect(help.stdout + help.stderr).to.contain(flag);
  });
});
