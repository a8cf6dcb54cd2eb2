/**
 * last-applied-osc.yaml per contract (node-agent/applier/last-applied.ts): a v1.91.4 OSC's exact
 * bytes; a v1.150.0 OSC re-encoded with containerd's environment drop-in, as upstream v1.150.0's
 * agent writes it (the bytes themselves are compared with upstream's in
 * test/compat/v1.150/node-agent.test.ts).
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { type OperatingSystemConfig, stringifyYaml } from '../../../api/index.js';
import { FakeContainerd } from '../../../hack/node-agent-doubles/fake-containerd.js';
import { applyTo } from '../support/apply-fixture.js';
import { useTempDirs } from '../support/harness.js';

const LAST_APPLIED = 'var/lib/gardener-node-agent/last-applied-osc.yaml';
const UPSTREAM_CHANGES = 'var/lib/gardener-node-agent/last-computed-osc-changes.yaml';
const b64 = (s: string) => Buffer.from(s).toString('base64');

function osc(criConfig?: object): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: {},
    spec: {
      type: '',
      purpose: 'reconcile',
      ...(criConfig ? { criConfig } : {}),
      units: [{ name: 'containerd.service', dropIns: [{ name: '10-a.conf', content: '[Service]\n' }] }],
      files: [{ path: '/etc/a', content: { inline: { encoding: 'b64', data: b64('a\n') } } }],
    },
  } as unknown as OperatingSystemConfig;
}

describe('node-agent: last-applied-osc.yaml per contract', () => {
  const tempDir = useTempDirs();
  const options = { containerd: new FakeContainerd(), agentPath: '/bin', hostName: 'node-1' };

  it('keeps the exact bytes of a v1.91.4 OSC', async () => {
    const root = tempDir('gna-root-');
    const text = `${stringifyYaml(osc({ name: 'containerd' }))}# a comment survives\n`;
    await applyTo(root, text, tempDir('gna-images-'), options);
    expect(readFileSync(join(root, LAST_APPLIED), 'utf8')).to.equal(text);
  });

  it("writes a v1.150.0 OSC re-encoded with the drop-in, 0600, and removes upstream's computed changes", async () => {
    const root = tempDir('gna-root-');
    mkdirSync(join(root, 'var/lib/gardener-node-agent'), { recursive: true });
    writeFileSync(join(root, UPSTREAM_CHANGES), 'units: {}\n');
    const text = `${stringifyYaml(osc({ name: 'containerd', containerd: { sandboxImage: 'pause:3.10' } }))}# gone\n`;
    await applyTo(root, text, tempDir('gna-images-'), options);
    const written = readFileSync(join(root, LAST_APPLIED), 'utf8');
    expect(written).to.not.include('# gone');
    expect(written).to.include(
      '    - content: |\n        [Service]\n        Environment="PATH=/var/bin/containerruntimes:/bin"\n      name: 30-env_config.conf\n',
    );
    expect(written).to.include('status: {}\n');
    expect(statSync(join(root, LAST_APPLIED)).mode & 0o777).to.equal(0o600);
    expect(existsSync(join(root, UPSTREAM_CHANGES))).to.equal(false);
    // read back: the same OSC is up to date, and the file is not rewritten
    const again = await applyTo(root, text, tempDir('gna-images-'), options);
    expect(again.result.outcome).to.equal('up-to-date');
    expect(again.ops).to.deep.equal([]);
    expect(readFileSync(join(root, LAST_APPLIED), 'utf8')).to.equal(written);
  });
});
