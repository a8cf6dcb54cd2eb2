/**
 * An apply of a v1.150.0 OSC that hands containerd to the agent: config.toml from `containerd
 * config default` when missing, patched, 0644; the environment drop-in on containerd.service;
 * containerd restarted once when its configuration changed and never otherwise.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1 } from '../../../hack/landscape/ntv18-fixtures.js';
import { FakeContainerd } from '../../../hack/node-agent-doubles/fake-containerd.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { applyTo } from '../support/apply-fixture.js';
import { useTempDirs } from '../support/harness.js';

const SANDBOX = 'europe-docker.pkg.dev/gardener-project/releases/pause:3.10';

function withContainerd(cgroupDriver: string | undefined, plugins?: unknown[]): OperatingSystemConfig {
  const base = oscV1();
  return {
    ...base,
    spec: {
      ...base.spec,
      criConfig: {
        name: 'containerd',
        ...(cgroupDriver ? { cgroupDriver } : {}),
        containerd: { sandboxImage: SANDBOX, ...(plugins ? { plugins } : {}) },
      },
    },
  } as OperatingSystemConfig;
}

describe('node-agent applier: containerd owned by the agent (v1.150.0)', () => {
  const tempDir = useTempDirs();
  let root: string;
  let images: string;
  let systemd: MemorySystemd;
  let containerd: FakeContainerd;

  beforeEach(() => {
    root = tempDir('gna-root-');
    images = writeImages(tempDir('gna-images-'), IMAGE_FILES);
    systemd = new MemorySystemd();
    containerd = new FakeContainerd();
  });

  const apply = (osc: OperatingSystemConfig) => {
    systemd.ops.length = 0;
    return applyTo(root, osc, images, {
      systemd,
      containerd,
      agentPath: '/usr/bin:/bin',
      hostName: 'node-1',
    });
  };
  const configToml = () => readFileSync(join(root, 'etc/containerd/config.toml'), 'utf8');

  it('creates config.toml from the default, patched, with the drop-in, and restarts containerd once', async () => {
    const { ops } = await apply(withContainerd('systemd'));
    expect(containerd.defaultConfigCalls).to.equal(1);
    expect(statSync(join(root, 'etc/containerd/config.toml')).mode & 0o777).to.equal(0o644);
    for (const dir of ['etc/containerd/conf.d', 'etc/containerd/certs.d', 'var/bin/containerruntimes'])
      expect(statSync(join(root, dir)).isDirectory(), dir).to.equal(true);
    expect(configToml()).to.contain('          SystemdCgroup = true\n');
    expect(configToml()).to.contain(`    sandbox_image = "${SANDBOX}"\n`);
    expect(configToml()).to.match(/^imports = \["\/etc\/containerd\/conf.d\/\*.toml"\]$/m);
    expect(
      readFileSync(join(root, 'etc/systemd/system/containerd.service.d/30-env_config.conf'), 'utf8'),
    ).to.equal('[Service]\nEnvironment="PATH=/var/bin/containerruntimes:/usr/bin:/bin"\n');
    // the unit the drop-in brings is enabled like any unit without `enable: false`
    expect(ops.filter((op) => op.includes('containerd.service'))).to.deep.equal([
      'enable containerd.service',
      'restart containerd.service',
    ]);
  });

  it('keeps an existing config.toml as the base and leaves containerd alone when nothing of it changed', async () => {
    await apply(withContainerd('systemd'));
    const first = configToml();
    const { ops } = await apply(withContainerd('systemd'));
    expect(containerd.defaultConfigCalls).to.equal(1);
    expect(configToml()).to.equal(first);
    expect(ops.filter((op) => op.includes('containerd'))).to.deep.equal([]);
  });

  it('restarts containerd once for a cgroup-driver change and for a plugin added', async () => {
    await apply(withContainerd('systemd'));
    let { ops } = await apply(withContainerd('cgroupfs'));
    expect(configToml()).to.contain('          SystemdCgroup = false\n');
    expect(ops.filter((op) => op.includes('containerd'))).to.deep.equal(['restart containerd.service']);
    ({ ops } = await apply(
      withContainerd('cgroupfs', [
        {
          path: ['io.containerd.grpc.v1.cri', 'containerd', 'runtimes', 'gvisor'],
          values: { runtime_type: 'io.containerd.runsc.v1' },
        },
      ]),
    ));
    expect(configToml()).to.contain('[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.gvisor]\n');
    expect(ops.filter((op) => op.includes('containerd'))).to.deep.equal(['restart containerd.service']);
  });

  it('leaves containerd alone for an OSC without containerd configuration (v1.91.4)', async () => {
    const { ops } = await apply(oscV1());
    expect(containerd.defaultConfigCalls).to.equal(0);
    expect(ops.filter((op) => op.includes('containerd'))).to.deep.equal([]);
  });
});
