/**
 * The controller-manager image (hack/build-controller-manager-image.ts): an OCI layout whose tag
 * names an image index of an amd64 and an arm64 image, whose digests hold, tagged as `gardener-osc
 * manifests` expects, reproducible, and self-contained: each image's executable is the pinned
 * official Node.js binary of its architecture, its loader and libraries come from Debian's packages
 * for that architecture (byte for byte the files of those .debs, their versions in the labels).
 * Unpacked by a real OCI tool (umoci) and run inside its own root filesystem (chroot, as the
 * image's non-root user, with an empty environment), the amd64 image prints its version, validates
 * a configuration with the controller-manager's code and renders the same bytes as the package; the
 * arm64 image prints its version under qemu-aarch64-static inside its own root filesystem.
 * skopeo copies the archive whole (`--all`), as it pushes it to a registry.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { stringifyYaml } from '../../api/index.js';
import { VERSION } from '../../api/version.js';
import { CONTROLLER_MANAGER_UID } from '../../charts/controller-manager/workload.js';
import { DEFAULT_CONTROLLER_MANAGER_IMAGE, manifests } from '../../cli/manifests-command.js';
import { DEFAULT_NOW, render } from '../../cli/render-command.js';
import {
  buildControllerManagerExecutable,
  buildControllerManagerImage,
} from '../../hack/build-controller-manager-image.js';
import { EM_AARCH64, EM_X86_64, readElf } from '../../hack/elf.js';
import { ARCHES, debRoot, type ImageArch, NODE_DIST_VERSION, resolveIn } from '../../hack/image-runtime.js';
import { MEDIA_TYPE, sha256 } from '../../hack/oci-image.js';
import type { BuildResult } from '../../hack/single-executable.js';
import { ROOT } from '../support/package-build.js';
import { untar } from '../support/tar-read.js';

const which = (command: string) =>
  ['/usr/sbin', '/usr/bin', '/sbin', '/bin'].map((d) => join(d, command)).find((p) => existsSync(p)) ??
  command;

/** Runs `args` inside `rootfs` as the image's user (root: chroot; else a user namespace), with an empty environment. */
function inImage(rootfs: string, args: string[]) {
  const user = `${CONTROLLER_MANAGER_UID}:${CONTROLLER_MANAGER_UID}`;
  const argv =
    process.getuid?.() === 0
      ? [which('chroot'), `--userspec=${user}`, rootfs, ...args]
      : [which('unshare'), '--map-root-user', which('chroot'), rootfs, ...args];
  const r = spawnSync('/usr/bin/env', ['-i', ...argv], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.error) throw r.error;
  return r;
}

/**
 * A layout beside `layout` whose index.json names one architecture's image manifest directly (the
 * blobs shared by a symbolic link): umoci unpacks one image, and refuses a tag naming an index of
 * two ("tag is ambiguous").
 */
function singleArchLayout(layout: string, manifest: string, size: number, tag: string): string {
  const dir = `${layout}-${tag}`;
  mkdirSync(dir);
  symlinkSync(join(layout, 'blobs'), join(dir, 'blobs'));
  copyFileSync(join(layout, 'oci-layout'), join(dir, 'oci-layout'));
  const entry = {
    mediaType: MEDIA_TYPE.manifest,
    digest: manifest,
    size,
    annotations: { 'org.opencontainers.image.ref.name': tag },
  };
  writeFileSync(
    join(dir, 'index.json'),
    JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPE.index, manifests: [entry] }),
  );
  return dir;
}

const ARCHS: readonly ImageArch[] = ['amd64', 'arm64'];

describe('controller-manager image: amd64 and arm64, Debian runtime, self-contained, reproducible', function () {
  this.timeout(300_000);
  let dir: string;
  const builds = {} as Record<ImageArch, BuildResult>;
  let image: Awaited<ReturnType<typeof buildControllerManagerImage>>;
  const rootfs = {} as Record<ImageArch, string>;
  let files: ReturnType<typeof untar>;
  const blob = (digest: string) => files.get(`blobs/sha256/${digest.slice('sha256:'.length)}`)!.data;

  before(async function () {
    this.timeout(900_000);
    dir = mkdtempSync(join(tmpdir(), 'osc-cm-image-'));
    for (const arch of ARCHS)
      builds[arch] = await buildControllerManagerExecutable({ arch, outDir: join(dir, 'dist', arch) });
    image = await buildControllerManagerImage({
      arches: ARCHS,
      binaries: { amd64: builds.amd64.binary, arm64: builds.arm64.binary },
      out: join(dir, 'image.tar'),
    });
    files = untar(readFileSync(image.archive));
    const layout = join(dir, 'layout');
    mkdirSync(layout);
    expect(spawnSync('tar', ['-xf', image.archive, '-C', layout]).status).to.equal(0);
    for (const arch of ARCHS) {
      const digest = image.manifests.get(arch)!;
      const single = singleArchLayout(layout, digest, blob(digest).length, arch);
      const bundle = join(dir, `bundle-${arch}`);
      const unpacked = spawnSync('umoci', ['unpack', '--rootless', '--image', `${single}:${arch}`, bundle], {
        encoding: 'utf8',
      });
      expect(unpacked.status, unpacked.stderr).to.equal(0);
      rootfs[arch] = join(bundle, 'rootfs');
    }
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is tagged as manifests expects: an image index of linux/amd64 and linux/arm64, digests holding', () => {
    expect(image.name).to.equal(DEFAULT_CONTROLLER_MANAGER_IMAGE);
    expect(image.name.endsWith(`:v${VERSION}`)).to.equal(true);
    const printed = manifests({
      config: join(ROOT, 'examples/controller-manager.yaml'),
      namespace: 'garden',
      image: DEFAULT_CONTROLLER_MANAGER_IMAGE,
      replicas: '2',
    });
    expect(printed).to.contain(`image: ${DEFAULT_CONTROLLER_MANAGER_IMAGE}\n`);

    for (const [path, { data }] of files) {
      if (path.startsWith('blobs/sha256/')) expect(sha256(data)).to.equal(`sha256:${path.slice(13)}`);
    }
    const index = JSON.parse(files.get('index.json')!.data.toString());
    expect(index.manifests).to.have.length(1);
    expect(index.manifests[0]).to.deep.include({ mediaType: MEDIA_TYPE.index, digest: image.indexDigest });
    expect(index.manifests[0].annotations).to.deep.equal({
      'io.containerd.image.name': DEFAULT_CONTROLLER_MANAGER_IMAGE,
      'org.opencontainers.image.ref.name': `v${VERSION}`,
    });
    const imageIndex = JSON.parse(blob(image.indexDigest).toString());
    expect(imageIndex.mediaType).to.equal(MEDIA_TYPE.index);
    expect(
      imageIndex.manifests.map(
        (m: { digest: string; platform: unknown; mediaType: string; size: number }) => {
          expect(m.size).to.equal(blob(m.digest).length);
          return [m.mediaType, m.digest, m.platform];
        },
      ),
    ).to.deep.equal(
      ARCHS.map((arch) => [
        MEDIA_TYPE.manifest,
        image.manifests.get(arch),
        { architecture: arch, os: 'linux' },
      ]),
    );
  });

  for (const arch of ARCHS) {
    it(`${arch}: the pinned Node's executable, the loader and libraries of Debian's ${arch} packages, recorded in its labels`, () => {
      const manifest = JSON.parse(blob(image.manifests.get(arch)!).toString());
      expect(manifest.layers[0].mediaType).to.equal(MEDIA_TYPE.layer);
      const config = JSON.parse(blob(manifest.config.digest).toString());
      expect(config).to.deep.include({ architecture: arch, os: 'linux' });
      const debs = debRoot(arch);
      expect(config.config).to.deep.equal({
        Entrypoint: ['/gardener-osc'],
        User: '65532:65532',
        Labels: {
          'io.gardener.osc.debs': Object.entries(debs.versions)
            .map(([name, version]) => `${name}:${arch}=${version}`)
            .join(' '),
          'io.gardener.osc.node': `${ARCHES[arch].nodePackage}@${NODE_DIST_VERSION} ${ARCHES[arch].integrity}`,
          'org.opencontainers.image.version': VERSION,
        },
      });
      expect(Object.keys(debs.versions).sort()).to.deep.equal(['libc6', 'libgcc-s1', 'libstdc++6']);
      const layer = untar(gunzipSync(blob(manifest.layers[0].digest)));
      const executable = layer.get('gardener-osc')!;
      expect(executable.mode).to.equal(0o755);
      expect(sha256(executable.data)).to.equal(sha256(readFileSync(builds[arch].binary)));
      const elf = readElf(executable.data);
      const machine = { amd64: EM_X86_64, arm64: EM_AARCH64 }[arch];
      const loader = { amd64: '/lib64/ld-linux-x86-64.so.2', arm64: '/lib/ld-linux-aarch64.so.1' }[arch];
      const triplet = { amd64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' }[arch];
      expect(elf).to.include({ machine, interpreter: loader });
      const libraries = [...layer.keys()].filter(
        (p) => !['gardener-osc', 'etc/passwd', 'etc/group'].includes(p),
      );
      expect(libraries.sort()).to.deep.equal(
        [
          loader,
          ...['libc.so.6', 'libdl.so.2', 'libgcc_s.so.1', 'libm.so.6', 'libpthread.so.0'].map(
            (l) => `/lib/${triplet}/${l}`,
          ),
          `/usr/lib/${triplet}/libstdc++.so.6`,
        ]
          .map((p) => p.slice(1))
          .sort(),
      );
      for (const path of libraries) {
        // Where each file comes from: the bytes of the .deb's file (its symbolic links followed),
        // never the build machine's /lib.
        expect(sha256(layer.get(path)!.data), path).to.equal(
          sha256(readFileSync(resolveIn(debs.root, `/${path}`))),
        );
        expect(readElf(layer.get(path)!.data).machine, path).to.equal(machine);
      }
      expect(layer.get(loader.slice(1))!.mode).to.equal(0o755);
    });
  }

  it('amd64 runs inside its own root filesystem: --version, a configuration check, a render', () => {
    const version = inImage(rootfs.amd64, ['/gardener-osc', '--version']);
    expect(version.status, version.stderr).to.equal(0);
    expect(version.stdout).to.equal(`${VERSION}\n`);
    expect(version.stderr).to.equal('');

    const inputs = join(rootfs.amd64, 'tmp');
    for (const name of ['controller-manager.yaml', 'cluster.yaml', 'values.yaml'])
      copyFileSync(join(ROOT, 'examples', name), join(inputs, name));
    const check = inImage(rootfs.amd64, [
      '/gardener-osc',
      'controller-manager',
      '--config',
      '/tmp/controller-manager.yaml',
      '--check-config',
    ]);
    expect(check.status, check.stderr).to.equal(0);
    expect(check.stdout).to.contain('syncPeriod: 1h0m0s');

    const rendered = inImage(rootfs.amd64, [
      '/gardener-osc',
      'render',
      '--cluster',
      '/tmp/cluster.yaml',
      '--values',
      '/tmp/values.yaml',
    ]);
    expect(rendered.status, rendered.stderr).to.equal(0);
    const expected = render({ target: 'seed', now: DEFAULT_NOW })
      .objects.map((o) => stringifyYaml(o))
      .join('---\n');
    expect(rendered.stdout).to.equal(expected);
  });

  it('arm64 runs inside its own root filesystem under qemu-aarch64-static: --version', () => {
    // Static, so it runs inside the chroot too: the arm64 loader and libraries are the image's only.
    const qemu = which('qemu-aarch64-static');
    expect(existsSync(qemu), 'qemu-aarch64-static is missing (apt-get install qemu-user-static)').to.equal(
      true,
    );
    copyFileSync(qemu, join(rootfs.arm64, 'qemu-aarch64-static'));
    const version = inImage(rootfs.arm64, ['/qemu-aarch64-static', '/gardener-osc', '--version']);
    expect(version.status, version.stderr).to.equal(0);
    expect(version.stdout).to.equal(`${VERSION}\n`);
    expect(version.stderr).to.equal('');
  });

  it('pushes whole with skopeo copy --all: both images, the same index digest', () => {
    // What `skopeo copy --all oci-archive:… docker://REGISTRY/…` sends, into a local layout (no
    // registry is reachable here): skopeo reads the archive's one entry as the index and copies it
    // and every image unchanged.
    const target = join(dir, 'copied');
    const copied = spawnSync(
      'skopeo',
      ['copy', '--all', `oci-archive:${image.archive}`, `oci:${target}:pushed`],
      {
        encoding: 'utf8',
      },
    );
    expect(copied.status, `${copied.stderr} (apt-get install skopeo)`).to.equal(0);
    const index = JSON.parse(readFileSync(join(target, 'index.json'), 'utf8'));
    expect(index.manifests.map((m: { digest: string }) => m.digest)).to.deep.equal([image.indexDigest]);
    for (const arch of ARCHS) {
      expect(
        existsSync(join(target, 'blobs/sha256', image.manifests.get(arch)!.slice('sha256:'.length))),
        arch,
      ).to.be.true;
      const inspected = spawnSync(
        'skopeo',
        ['inspect', '--override-os', 'linux', '--override-arch', arch, `oci-archive:${image.archive}`],
        { encoding: 'utf8' },
      );
      expect(inspected.status, inspected.stderr).to.equal(0);
      const info = JSON.parse(inspected.stdout);
      expect(info.Architecture).to.equal(arch);
      expect(info.Labels['io.gardener.osc.debs']).to.contain(`libc6:${arch}=`);
    }
  });

  it('is reproducible: builds without the cache give the same executables, so the same index', async () => {
    const binaries: Partial<Record<ImageArch, string>> = {};
    for (const arch of ARCHS) {
      const again = await buildControllerManagerExecutable({
        arch,
        outDir: join(dir, 'again', arch),
        cacheDir: null,
      });
      expect(sha256(readFileSync(again.binary)), arch).to.equal(sha256(readFileSync(builds[arch].binary)));
      binaries[arch] = again.binary;
    }
    const second = await buildControllerManagerImage({
      arches: ARCHS,
      binaries,
      out: join(dir, 'again.tar'),
    });
    expect(second.indexDigest).to.equal(image.indexDigest);
  });
});
