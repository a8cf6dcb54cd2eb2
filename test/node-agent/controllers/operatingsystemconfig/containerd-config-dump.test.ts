/**
 * containerd's `config dump` against the config.toml the agent wrote (v1.150 pools): the fields
 * the agent sets, read at each side's own config version; the import globs against the files
 * containerd loaded. Recorded dumps of Debian's containerd 1.6.20 (containerd-1.6.20/README.md);
 * the 2.x form as containerd v2's `config dump` prints a migrated version 2 file (version 3,
 * the CRI plugin split into io.containerd.cri.v1.images and io.containerd.cri.v1.runtime).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../../../api/index.js';
import { decodeToml } from '../../../../api/toml/toml-decode.js';
import type { TomlTable } from '../../../../api/toml/toml-value.js';
import {
  containerdConfigDumpCheck,
  containerdFieldsDiffer,
  globUnder,
} from '../../../../node-agent/controllers/operatingsystemconfig/in-effect/containerd-config-dump.js';
import { mismatchText } from '../../../../node-agent/controllers/operatingsystemconfig/in-effect/in-effect-check.js';

const RECORDED = join(import.meta.dirname, 'containerd-1.6.20');
const recorded = (file: string) => readFileSync(join(RECORDED, file), 'utf8');
const CRI = 'plugins."io.containerd.grpc.v1.cri"';

/** containerd v2's dump of a version 2 file, migrated to version 3 (only the fields compared). */
function v2Dump(o: { systemdCgroup: boolean; binDirs?: string[]; imports: string[] }): TomlTable {
  const cni = o.binDirs ? `bin_dirs = ${JSON.stringify(o.binDirs)}` : 'bin_dir = "/opt/cni/bin"';
  return decodeToml(`imports = ${JSON.stringify(o.imports)}
version = 3

[plugins]
  [plugins."io.containerd.cri.v1.images"]
    [plugins."io.containerd.cri.v1.images".pinned_images]
      sandbox = "registry.k8s.io/pause:3.10"
    [plugins."io.containerd.cri.v1.images".registry]
      config_path = "/etc/containerd/certs.d"
  [plugins."io.containerd.cri.v1.runtime"]
    [plugins."io.containerd.cri.v1.runtime".cni]
      ${cni}
    [plugins."io.containerd.cri.v1.runtime".containerd]
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes]
        [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
          [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
            SystemdCgroup = ${o.systemdCgroup}
`);
}

describe('containerd config dump against the config.toml the agent wrote', () => {
  const written = decodeToml(recorded('config.toml'));

  it('containerd 1.6.20 takes every field the agent set: no mismatch', () => {
    expect(containerdFieldsDiffer(written, decodeToml(recorded('dump.toml')), [])).to.deep.equal([]);
  });

  it('an import that overrides the CRI plugin: each field it changed is named, and whether it loaded', () => {
    const dump = decodeToml(recorded('dump-import.toml'));
    const mismatches = containerdFieldsDiffer(written, dump, ['/etc/containerd/conf.d/10-cgroupfs.toml']);
    expect(mismatches.map((m) => mismatchText('containerd config dump', m))).to.deep.equal([
      `containerd config dump ${CRI}.sandbox_image is "registry.k8s.io/pause:3.6", rendered "registry.k8s.io/pause:3.10"`,
      `containerd config dump ${CRI}.containerd.runtimes.runc.options.SystemdCgroup is false, rendered true`,
      `containerd config dump ${CRI}.registry.config_path is "", rendered "/etc/containerd/certs.d"`,
    ]);
    // a matched file containerd did not load
    expect(
      containerdFieldsDiffer(written, decodeToml(recorded('dump.toml')), [
        '/etc/containerd/conf.d/20-missing.toml',
      ]),
    ).to.deep.equal([
      {
        field: 'imports',
        rendered: '["/etc/containerd/conf.d/20-missing.toml"]',
        running: '["/etc/containerd/config.toml"]',
      },
    ]);
  });

  it('containerd 2.x: a version 2 file dumped as version 3 is compared at the migrated paths', () => {
    const imports = ['/etc/containerd/config.toml'];
    expect(containerdFieldsDiffer(written, v2Dump({ systemdCgroup: true, imports }), [])).to.deep.equal([]);
    // containerd 2.2 dumps bin_dirs: the same directory is the same
    expect(
      containerdFieldsDiffer(
        written,
        v2Dump({ systemdCgroup: true, binDirs: ['/opt/cni/bin'], imports }),
        [],
      ),
    ).to.deep.equal([]);
    expect(
      containerdFieldsDiffer(
        written,
        v2Dump({ systemdCgroup: false, binDirs: ['/usr/lib/cni'], imports }),
        [],
      ),
    ).to.deep.equal([
      {
        field: 'plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options.SystemdCgroup',
        rendered: 'true',
        running: 'false',
      },
      {
        field: 'plugins."io.containerd.cri.v1.runtime".cni.bin_dirs',
        rendered: '["/opt/cni/bin"]',
        running: '["/usr/lib/cni"]',
      },
    ]);
  });

  describe('the check', () => {
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'containerd-dump-'));
      mkdirSync(join(root, 'etc/containerd/conf.d'), { recursive: true });
      writeFileSync(join(root, 'etc/containerd/config.toml'), recorded('config.toml'));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));
    const osc = (containerd: boolean) =>
      ({
        spec: {
          criConfig: { name: 'containerd', ...(containerd ? { containerd: { sandboxImage: 'x' } } : {}) },
        },
      }) as unknown as OperatingSystemConfig;
    const signal = new AbortController().signal;

    it('expands the written import globs under the root and compares with the dump', async () => {
      writeFileSync(join(root, 'etc/containerd/conf.d/10-cgroupfs.toml'), '');
      writeFileSync(join(root, 'etc/containerd/conf.d/notes.txt'), '');
      expect(await globUnder(root)('/etc/containerd/conf.d/*.toml')).to.deep.equal([
        '/etc/containerd/conf.d/10-cgroupfs.toml',
      ]);
      const check = containerdConfigDumpCheck({ root, dump: async () => recorded('dump-import.toml') });
      expect((await check.check(osc(true), signal)).map((m) => m.field)).to.deep.equal([
        `${CRI}.sandbox_image`,
        `${CRI}.containerd.runtimes.runc.options.SystemdCgroup`,
        `${CRI}.registry.config_path`,
      ]);
    });

    it('asks nothing of a pool whose containerd the agent does not configure (v1.91)', async () => {
      const check = containerdConfigDumpCheck({
        root,
        dump: async () => {
          throw new Error('asked');
        },
      });
      expect(await check.check(osc(false), signal)).to.deep.equal([]);
      expect(await check.check(osc(true), signal).catch((e: Error) => e.message)).to.equal('asked');
    });
  });
});
