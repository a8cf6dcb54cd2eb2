/**
 * The controller-manager image (hack/build-controller-manager-image.ts): an OCI layout whose digests
 * hold, tagged as `gardener-osc manifests` expects, reproducible, and self-contained: unpacked by a
 * real OCI tool (umoci) and run inside its own root filesystem (chroot, as the image's non-root
 * user, with an empty environment), it prints its version, validates a configuration with the
 * controller-manager's code and renders the same bytes as the package.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
  linkedFiles,
} from '../../hack/build-controller-manager-image.js';
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

describe('controller-manager image: OCI layout, self-contained, reproducible', function () {
  this.timeout(300_000);
  let dir: string;
  let build: BuildResult;
  let image: Awaited<ReturnType<typeof buildControllerManagerImage>>;
  let rootfs: string;

  before(async function () {
    this.timeout(900_000);
    dir = mkdtempSync(join(tmpdir(), 'osc-cm-image-'));
    build = await buildControllerManagerExecutable({ outDir: join(dir, 'dist') });
    image = await buildControllerManagerImage({ binary: build.binary, out: join(dir, 'image.tar') });
    const layout = join(dir, 'layout');
    mkdirSync(layout);
    expect(spawnSync('tar', ['-xf', image.archive, '-C', layout]).status).to.equal(0);
    const bundle = join(dir, 'bundle');
    const unpacked = spawnSync(
      'umoci',
      ['unpack', '--rootless', '--image', `${layout}:v${VERSION}`, bundle],
      {
        encoding: 'utf8',
      },
    );
    expect(unpacked.status, unpacked.stderr).to.equal(0);
    rootfs = join(bundle, 'rootfs');
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is tagged as manifests expects, runs /gardener-osc as the non-root user, and its digests hold', () => {
    expect(image.name).to.equal(DEFAULT_CONTROLLER_MANAGER_IMAGE);
    expect(image.name.endsWith(`:v${VERSION}`)).to.equal(true);
    const printed = manifests({
      config: join(ROOT, 'examples/controller-manager.yaml'),
      namespace: 'garden',
      image: DEFAULT_CONTROLLER_MANAGER_IMAGE,
      replicas: '2',
    });
    expect(printed).to.contain(`image: ${DEFAULT_CONTROLLER_MANAGER_IMAGE}\n`);

    const files = untar(readFileSync(image.archive));
    for (const [path, { data }] of files) {
      if (path.startsWith('blobs/sha256/')) expect(sha256(data)).to.equal(`sha256:${path.slice(13)}`);
    }
    const blob = (digest: string) => files.get(`blobs/sha256/${digest.slice('sha256:'.length)}`)!.data;
    const index = JSON.parse(files.get('index.json')!.data.toString());
    expect(index.manifests[0].annotations).to.deep.equal({
      'io.containerd.image.name': DEFAULT_CONTROLLER_MANAGER_IMAGE,
      'org.opencontainers.image.ref.name': `v${VERSION}`,
    });
    const manifest = JSON.parse(blob(image.manifestDigest).toString());
    expect(manifest.layers[0].mediaType).to.equal(MEDIA_TYPE.layer);
    const config = JSON.parse(blob(manifest.config.digest).toString());
    expect(config.config).to.deep.equal({ Entrypoint: ['/gardener-osc'], User: '65532:65532' });
    const layer = untar(gunzipSync(blob(manifest.layers[0].digest)));
    const ldd = linkedFiles(spawnSync('ldd', [build.binary], { encoding: 'utf8' }).stdout);
    expect(ldd.some((p) => p.includes('ld-linux'))).to.equal(true);
    expect([...layer.keys()].sort()).to.deep.equal(
      ['gardener-osc', 'etc/group', 'etc/passwd', ...ldd.map((p) => p.slice(1))].sort(),
    );
    expect(layer.get('gardener-osc')!.mode).to.equal(0o755);
  });

  it('runs inside its own root filesystem: --version, a configuration check, a render', () => {
    const version = inImage(rootfs, ['/gardener-osc', '--version']);
    expect(version.status, version.stderr).to.equal(0);
    expect(version.stdout).to.equal(`${VERSION}\n`);
    expect(version.stderr).to.equal('');

    const inputs = join(rootfs, 'tmp');
    for (const name of ['controller-manager.yaml', 'cluster.yaml', 'values.yaml'])
      copyFileSync(join(ROOT, 'examples', name), join(inputs, name));
    const check = inImage(rootfs, [
      '/gardener-osc',
      'controller-manager',
      '--config',
      '/tmp/controller-manager.yaml',
      '--check-config',
    ]);
    expect(check.status, check.stderr).to.equal(0);
    expect(check.stdout).to.contain('syncPeriod: 1h0m0s');

    const rendered = inImage(rootfs, [
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

  it('is reproducible: a build without the cache gives the same executable, so the same image', async () => {
    const again = await buildControllerManagerExecutable({ outDir: join(dir, 'again'), cacheDir: null });
    expect(sha256(readFileSync(again.binary))).to.equal(sha256(readFileSync(build.binary)));
    const second = await buildControllerManagerImage({ binary: again.binary, out: join(dir, 'again.tar') });
    expect(second.manifestDigest).to.equal(image.manifestDigest);
  });
});
