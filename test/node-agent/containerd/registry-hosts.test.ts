/**
 * Registries as gardener v1.150.0's agent writes them: hosts.toml from its template (the vector of
 * its integration test), rewritten on every apply, removed when the upstream is dropped.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1 } from '../../../hack/landscape/ntv18-fixtures.js';
import { FakeContainerd } from '../../../hack/node-agent-doubles/fake-containerd.js';
import { goJsonStrings, goQuote, hostsToml } from '../../../node-agent/containerd/registry-hosts.js';
import { applyTo } from '../support/apply-fixture.js';
import { useTempDirs } from '../support/harness.js';

function withRegistries(registries: unknown[]): OperatingSystemConfig {
  const base = oscV1();
  return {
    ...base,
    spec: {
      ...base.spec,
      criConfig: { name: 'containerd', containerd: { sandboxImage: 'pause:3.10', registries } },
    },
  } as OperatingSystemConfig;
}

describe('node-agent containerd: registries', () => {
  const tempDir = useTempDirs();

  it("renders upstream's template byte for byte", () => {
    expect(
      hostsToml({
        upstream: 'registry.k8s.io',
        server: 'https://registry.k8s.io',
        hosts: [
          {
            url: 'https://10.10.10.101:8080',
            capabilities: ['pull'],
            caCerts: ['/var/certs/ca.crt'],
            overridePath: true,
          },
        ],
      }),
    ).to.equal(
      '# managed by gardener-node-agent\nserver = "https://registry.k8s.io"\n\n[host."https://10.10.10.101:8080"]\n  capabilities = ["pull"]\n  ca = ["/var/certs/ca.crt"]\n  override_path = true\n\n',
    );
    expect(
      hostsToml({ upstream: 'docker.io', hosts: [{ url: 'http://mirror', overridePath: false }] }),
    ).to.equal(
      '# managed by gardener-node-agent\n[host."http://mirror"]\n  capabilities = ["pull","resolve"]\n\n',
    );
    expect(hostsToml({ upstream: 'x' })).to.equal('# managed by gardener-node-agent\n');
    expect(goQuote('a"\\\t\u007f')).to.equal('"a\\"\\\\\\t\\x7f"');
    expect(goJsonStrings(['<a&b>'])).to.equal('["\\u003ca\\u0026b\\u003e"]');
  });

  it('writes each desired registry, and removes the directory of one dropped', async () => {
    const root = tempDir('gna-root-');
    const images = writeImages(tempDir('gna-images-'), IMAGE_FILES);
    const o = { containerd: new FakeContainerd(), agentPath: '/bin', hostName: 'n' };
    const mirror = { upstream: 'docker.io', hosts: [{ url: 'https://mirror.local' }] };
    const gcr = { upstream: 'gcr.io', server: 'https://gcr.io' };
    await applyTo(root, withRegistries([mirror, gcr]), images, o);
    const hosts = (u: string) => join(root, 'etc/containerd/certs.d', u, 'hosts.toml');
    expect(readFileSync(hosts('docker.io'), 'utf8')).to.equal(hostsToml(mirror));
    expect(statSync(hosts('gcr.io')).mode & 0o777).to.equal(0o644);
    await applyTo(root, withRegistries([mirror]), images, o);
    expect(existsSync(join(root, 'etc/containerd/certs.d/gcr.io'))).to.equal(false);
    expect(existsSync(hosts('docker.io'))).to.equal(true);
  });

  it('refuses an upstream that would name a directory outside certs.d', async () => {
    const root = tempDir('gna-root-');
    const images = writeImages(tempDir('gna-images-'), IMAGE_FILES);
    const o = { containerd: new FakeContainerd(), agentPath: '/bin', hostName: 'n' };
    let error: unknown;
    await applyTo(root, withRegistries([{ upstream: '../../etc' }]), images, o).catch((e) => {
      error = e;
    });
    expect(String(error)).to.contain('does not name a directory of certs.d');
    // refused before anything was written
    expect(existsSync(join(root, 'etc'))).to.equal(false);
  });
});
