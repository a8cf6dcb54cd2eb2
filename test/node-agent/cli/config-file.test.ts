/**
 * `--config FILE` (v1.91.4) or `--config-dir DIR` (v1.150.0, DIR/config-<version>.yaml), and the
 * v1.150.0 CA bundle named by path.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { NodeAgentConfiguration } from '../../../api/index.js';
import { withCaFileRead } from '../../../node-agent/cli/ca-file.js';
import { configFileToRead, newestVersionedConfig } from '../../../node-agent/cli/config-file.js';
import { UsageError } from '../../../runtime/cli/exit-codes.js';
import { useTempDirs } from '../support/harness.js';

describe('gardener-node-agent: which config file', () => {
  const tempDir = useTempDirs();

  it('picks the newest config-<version>.yaml, releases over their pre-releases', () => {
    expect(
      newestVersionedConfig([
        'config.yaml',
        'config-v1.149.3.yaml',
        'config-v1.150.0-dev.yaml',
        'config-v1.150.0.yaml',
        'config-v1.99.0.yaml',
        'config-latest.yaml',
        'cluster-ca.crt',
      ]),
    ).to.equal('config-v1.150.0.yaml');
    expect(newestVersionedConfig(['config-v1.150.0-dev.yaml', 'config-v1.149.3.yaml'])).to.equal(
      'config-v1.150.0-dev.yaml',
    );
    expect(newestVersionedConfig(['config.yaml'])).to.equal(undefined);
  });

  it('reads --config, the default, or the file of --config-dir; never both flags', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config-v1.150.0.yaml'), '');
    writeFileSync(join(dir, 'config-v1.149.0.yaml'), '');
    expect(configFileToRead({ configDir: dir })).to.equal(join(dir, 'config-v1.150.0.yaml'));
    expect(configFileToRead({ config: '/x.yaml' })).to.equal('/x.yaml');
    expect(configFileToRead({})).to.equal('/var/lib/gardener-node-agent/config.yaml');
    expect(() => configFileToRead({ config: '/x.yaml', configDir: dir })).to.throw(UsageError, 'exclude');
  });

  it('says so when --config-dir holds no versioned config or cannot be read', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.yaml'), '');
    expect(() => configFileToRead({ configDir: dir })).to.throw(UsageError, 'holds no config-<version>.yaml');
    expect(() => configFileToRead({ configDir: join(dir, 'missing') })).to.throw(UsageError, 'cannot read');
  });

  it('reads apiServer.caFile under the root into the bundle, unless a bundle is given', () => {
    const root = tempDir();
    mkdirSync(join(root, 'var/lib/gardener-node-agent'), { recursive: true });
    writeFileSync(join(root, 'var/lib/gardener-node-agent/cluster-ca.crt'), 'PEM');
    const config: NodeAgentConfiguration = {
      clientConnection: {},
      server: {},
      apiServer: { server: 'https://x', caFile: '/var/lib/gardener-node-agent/cluster-ca.crt' },
      controllers: { operatingSystemConfig: {}, token: {} },
    };
    expect(withCaFileRead(config, root).apiServer.caBundle).to.equal(Buffer.from('PEM').toString('base64'));
    const given = { ...config, apiServer: { ...config.apiServer, caBundle: 'b3Ro' } };
    expect(withCaFileRead(given, root)).to.equal(given);
    expect(() => withCaFileRead(config, join(root, 'none'))).to.throw('cannot read apiServer.caFile');
  });
});
