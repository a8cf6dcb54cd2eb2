/**
 * config.toml as gardener v1.150.0's agent patches it (containerd_config.go), checked on the
 * vectors of its code and tests, and the plugin merge against Go (hack/toml-oracle).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { encodeGoToml } from '../../../api/toml/go-toml-encode.js';
import { decodeToml } from '../../../api/toml/toml-decode.js';
import type { TomlTable } from '../../../api/toml/toml-value.js';
import {
  CONTAINERD_17_DEFAULT,
  CONTAINERD_22_DEFAULT,
} from '../../../hack/node-agent-doubles/fake-containerd.js';
import { buildGoBinary } from '../../../hack/prepare/go-binary.js';
import { isAtLeast22 } from '../../../node-agent/containerd/containerd-tool.js';
import { mergeJsonInto } from '../../../node-agent/containerd/json-merge.js';
import {
  ContainerdConfigError,
  type CriConfig,
  patchContainerdConfig,
} from '../../../node-agent/containerd/patch-containerd-config.js';

const CRI: CriConfig = {
  name: 'containerd',
  cgroupDriver: 'systemd',
  containerd: { sandboxImage: 'europe-docker.pkg.dev/gardener-project/releases/pause:3.10' },
} as CriConfig;

function patched(text: string, cri: CriConfig = CRI, atLeast22 = false) {
  return decodeToml(encodeGoToml(patchContainerdConfig(decodeToml(text), cri, { atLeast22 }))) as Record<
    string,
    // biome-ignore lint/suspicious/noExplicitAny: tests walk the document freely
    any
  >;
}

describe('node-agent containerd: config.toml patches', () => {
  it('sets config path, imports, sandbox image, CNI dir and SystemdCgroup in a version 2 config', () => {
    const c = patched(CONTAINERD_17_DEFAULT);
    const cri = c.plugins['io.containerd.grpc.v1.cri'];
    expect(cri.registry.config_path).to.equal('/etc/containerd/certs.d');
    expect(c.imports).to.deep.equal(['/etc/containerd/conf.d/*.toml']);
    expect(cri.sandbox_image).to.equal(CRI.containerd!.sandboxImage);
    expect(cri.cni.bin_dir).to.equal('/opt/cni/bin');
    expect(cri.containerd.runtimes.runc.options.SystemdCgroup).to.equal(true);
  });

  it('uses the version 3 paths, and bin_dirs on containerd >= 2.2 only', () => {
    const old = patched(CONTAINERD_22_DEFAULT, { ...CRI, cgroupDriver: 'cgroupfs' }, false);
    const runtime = old.plugins['io.containerd.cri.v1.runtime'];
    expect(old.plugins['io.containerd.cri.v1.images'].pinned_images.sandbox).to.equal(
      CRI.containerd!.sandboxImage,
    );
    expect(old.plugins['io.containerd.cri.v1.images'].registry.config_path).to.equal(
      '/etc/containerd/certs.d',
    );
    expect(runtime.cni.bin_dir).to.equal('/opt/cni/bin');
    expect(runtime.containerd.runtimes.runc.options.SystemdCgroup).to.equal(false);
    const v22 = patched(CONTAINERD_22_DEFAULT, CRI, true);
    expect(v22.plugins['io.containerd.cri.v1.runtime'].cni).to.deep.equal({
      bin_dirs: ['/opt/cni/bin'],
      conf_dir: '/etc/cni/net.d',
    });
    // a version 2 config keeps bin_dir whatever containerd says
    expect(
      patched(CONTAINERD_17_DEFAULT, CRI, true).plugins['io.containerd.grpc.v1.cri'].cni.bin_dir,
    ).to.equal('/opt/cni/bin');
  });

  it('leaves SystemdCgroup alone without a cgroup driver, and keeps an import once', () => {
    const { cgroupDriver: _, ...noDriver } = CRI;
    const c = patched(
      `imports = ["/etc/containerd/conf.d/*.toml", "/x.toml"]\n${CONTAINERD_17_DEFAULT.replace('imports = []\n', '')}`,
      noDriver as CriConfig,
    );
    expect(c.imports).to.deep.equal(['/etc/containerd/conf.d/*.toml', '/x.toml']);
    expect(c.plugins['io.containerd.grpc.v1.cri'].containerd.runtimes.runc.options.SystemdCgroup).to.equal(
      false,
    );
  });

  it('rewrites plugin paths of the CRI v1 runtimes for config >= 3, adds and removes', () => {
    const cri = {
      ...CRI,
      containerd: {
        ...CRI.containerd!,
        plugins: [
          {
            path: ['io.containerd.grpc.v1.cri', 'containerd', 'runtimes', 'gvisor'],
            values: { runtime_type: 'io.containerd.runsc.v1' },
          },
          { op: 'remove', path: ['io.containerd.cri.v1.images', 'pinned_images'] },
        ],
      },
    } as CriConfig;
    const c = patched(CONTAINERD_22_DEFAULT, cri);
    expect(c.plugins['io.containerd.cri.v1.runtime'].containerd.runtimes.gvisor).to.deep.equal({
      runtime_type: 'io.containerd.runsc.v1',
    });
    expect(c.plugins['io.containerd.grpc.v1.cri']).to.equal(undefined);
    expect(c.plugins['io.containerd.cri.v1.images'].pinned_images).to.equal(undefined);
  });

  it('refuses a config version outside 1-4 and a path through a non-table', () => {
    expect(() => patched('version = 5\n')).to.throw(
      ContainerdConfigError,
      'unsupported containerd config file version 5',
    );
    expect(() => patched('version = "2"\n')).to.throw(ContainerdConfigError, 'as an int64');
    expect(() => patched('version = 2\nplugins = 1\n')).to.throw(ContainerdConfigError, 'not a map');
    // no version is version 1
    expect(patched('').plugins['io.containerd.grpc.v1.cri'].sandbox_image).to.equal(
      CRI.containerd!.sandboxImage,
    );
  });

  it('compares containerd versions with >= 2.2 as Masterminds does', () => {
    expect(['2.2.0', 'v2.2.1', '2.3.0', '3.0.0', '2.2.0+deb'].map(isAtLeast22)).to.deep.equal([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['1.7.23~ds2', '2.1.9', '2.2.0-rc.1', 'garbage'].map(isAtLeast22)).to.deep.equal([
      false,
      false,
      false,
      false,
    ]);
  });

  it("merges plugin values as Go's encoding/json does: numbers become floats, tables replaced whole", function () {
    this.timeout(120_000);
    const input = 'version = 2\n[plugins.a]\nx = 1\n[plugins.a.n]\nk = 1\n';
    const values = { y: 3, n: { j: true }, z: null, l: [1, 'two', { m: 0.5 }] };
    const ours = decodeToml(input);
    const plugins = ours.plugins as Record<string, TomlTable>;
    mergeJsonInto(plugins.a!, values);
    const binary = buildGoBinary(join(import.meta.dirname, '../../../hack/toml-oracle'), 'toml-oracle');
    const go = JSON.parse(
      execFileSync(binary, {
        input: `${JSON.stringify({ toml: input, path: ['plugins', 'a'], values })}\n`,
        encoding: 'utf8',
      }),
    );
    expect(encodeGoToml(ours)).to.equal(go.toml);
    expect(go.toml).to.equal(
      'version = 2\n\n[plugins]\n\n  [plugins.a]\n    l = [1.0, "two", { m = 0.5 }]\n    x = 1\n    y = 3.0\n\n    [plugins.a.n]\n      j = true\n',
    );
  });
});
