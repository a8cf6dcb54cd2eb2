/**
 * The contract switch on one node: it applied the v1.91.4 reconcile OSC of the example Cluster's
 * first pool, then receives the v1.150.0 one of the same pool (both from the goldens of the
 * renders). It converges with every unit restarted at most once, containerd included (its unit
 * gains the environment drop-in and its config.toml becomes the agent's in the same apply).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import {
  decodeOperatingSystemConfig,
  type OperatingSystemConfig,
  parseYamlDocuments,
} from '../../../api/index.js';
import { FakeContainerd } from '../../../hack/node-agent-doubles/fake-containerd.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { applyTo } from '../support/apply-fixture.js';
import { useTempDirs } from '../support/harness.js';

const GOLDEN = join(import.meta.dirname, '../../golden');

function firstReconcileOsc(file: string): OperatingSystemConfig {
  const docs = parseYamlDocuments(readFileSync(join(GOLDEN, file), 'utf8')) as {
    kind?: string;
    spec?: { purpose?: string };
  }[];
  const osc = docs.find((d) => d.kind === 'OperatingSystemConfig' && d.spec?.purpose === 'reconcile');
  const decoded = decodeOperatingSystemConfig(JSON.stringify(osc));
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
  return decoded.value;
}

/** Every file the OSC takes from an image, as the directory image extractor reads it. */
function imagesFor(dir: string, ...oscs: OperatingSystemConfig[]): string {
  for (const osc of oscs)
    for (const file of osc.spec.files ?? []) {
      const ref = file.content.imageRef;
      if (!ref) continue;
      const path = join(dir, encodeURIComponent(ref.image), ref.filePathInImage);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `binary from ${ref.image}`);
    }
  return dir;
}

describe('node-agent: a node switching from the v1.91.4 to the v1.150.0 contract', () => {
  const tempDir = useTempDirs();

  it('converges with each unit restarted at most once', async () => {
    const v91 = firstReconcileOsc('render/example-seed.yaml');
    const v150 = firstReconcileOsc('render-v1.150/upstream-example-seed.yaml');
    expect(v150.spec.criConfig?.containerd, 'the v1.150.0 OSC hands containerd to the agent').to.not.equal(
      undefined,
    );
    const root = tempDir('gna-root-');
    const images = imagesFor(tempDir('gna-images-'), v91, v150);
    const systemd = new MemorySystemd();
    const o = { systemd, containerd: new FakeContainerd(), agentPath: '/bin', hostName: 'node-1' };
    await applyTo(root, v91, images, o);
    systemd.ops.length = 0;
    const { ops } = await applyTo(root, v150, images, o);
    const restarts = ops.filter((op) => op.startsWith('restart '));
    expect(restarts.length, 'units restarted').to.be.greaterThan(0);
    expect(new Set(restarts).size, restarts.join(', ')).to.equal(restarts.length);
    expect(restarts).to.include('restart containerd.service');
    expect(readFileSync(join(root, 'etc/containerd/config.toml'), 'utf8')).to.contain('SystemdCgroup = true');
    // and a second delivery of the same OSC does nothing
    systemd.ops.length = 0;
    const again = await applyTo(root, v150, images, o);
    expect(again.result.outcome).to.equal('up-to-date');
    expect(again.ops).to.deep.equal([]);
  });
});
