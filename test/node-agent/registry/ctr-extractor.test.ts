import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { CtrImageExtractor } from '../../../node-agent/registry/ctr-extractor.js';
import { ImageFileNotFoundError } from '../../../node-agent/registry/image-extractor.js';
import { useTempDirs } from '../support/harness.js';
import { loggedCalls, stubEnv } from '../support/stubs.js';

describe('node-agent registry: ctr extractor (stub ctr on PATH)', function () {
  this.timeout(20_000);
  const tempDir = useTempDirs();
  let root: string;
  let log: string;
  let image: string;

  beforeEach(() => {
    const dir = tempDir('gna-ctr-');
    root = join(dir, 'root');
    mkdirSync(root);
    log = join(dir, 'argv.log');
    image = join(dir, 'image');
    mkdirSync(image);
    writeFileSync(join(image, 'kubelet'), 'kubelet-binary');
  });

  const extractor = (
    env: NodeJS.ProcessEnv = {},
    options: { attempts?: number; pullTimeoutMs?: number } = {},
  ) =>
    new CtrImageExtractor({
      root,
      env: stubEnv({ STUB_LOG: log, STUB_IMAGE_ROOT: image, ...env }),
      retryDelayMs: 10,
      ...options,
    });
  const calls = () => loggedCalls(readFileSync(log, 'utf8'));
  const scratch = () => join(root, 'var/lib/gardener-node-agent/tmp');

  it('pulls with the hosts dir, mounts into a scratch dir, copies with the exact mode, unmounts and cleans up', async () => {
    await extractor().copyFromImage('hyperkube:v1.28.2', '/kubelet', join(root, 'opt/bin/kubelet'), 0o755);
    expect(readFileSync(join(root, 'opt/bin/kubelet'), 'utf8')).to.equal('kubelet-binary');
    expect(statSync(join(root, 'opt/bin/kubelet')).mode & 0o7777).to.equal(0o755);
    const [pull, mount, unmount] = calls();
    const global = ['--address', '/run/containerd/containerd.sock', '--namespace', 'default'];
    expect(pull).to.deep.equal([
      ...global,
      'images',
      'pull',
      '--hosts-dir',
      join(root, 'etc/containerd/certs.d'),
      'hyperkube:v1.28.2',
    ]);
    expect(mount!.slice(0, 7)).to.deep.equal([...global, 'images', 'mount', 'hyperkube:v1.28.2']);
    expect(mount![7]).to.match(/\/var\/lib\/gardener-node-agent\/tmp\/mount-image-/);
    expect(unmount).to.deep.equal([...global, 'images', 'unmount', '--rm', mount![7]]);
    expect(readdirSync(scratch())).to.deep.equal([]);
    expect(statSync(scratch()).mode & 0o7777).to.equal(0o700);
  });

  it('uses CONTAINERD_ADDRESS and CONTAINERD_NAMESPACE', async () => {
    await extractor({ CONTAINERD_ADDRESS: '/run/other.sock', CONTAINERD_NAMESPACE: 'k8s.io' }).copyFromImage(
      'img',
      '/kubelet',
      join(root, 'k'),
      0o600,
    );
    expect(calls()[0]!.slice(0, 4)).to.deep.equal(['--address', '/run/other.sock', '--namespace', 'k8s.io']);
  });

  it('retries a failing pull', async () => {
    const counter = join(root, '..', 'fails');
    writeFileSync(counter, '2');
    await extractor({ STUB_PULL_FAILS_FILE: counter }).copyFromImage(
      'img',
      '/kubelet',
      join(root, 'k'),
      0o600,
    );
    expect(calls().map((c) => c[5])).to.deep.equal(['pull', 'pull', 'pull', 'mount', 'unmount']);
  });

  it('gives up after the attempts, naming the image and what ctr said', async () => {
    const counter = join(root, '..', 'fails');
    writeFileSync(counter, '5');
    const error = await extractor({ STUB_PULL_FAILS_FILE: counter })
      .copyFromImage('img', '/kubelet', join(root, 'k'), 0o600)
      .catch((e) => e);
    expect((error as Error).message).to.equal(
      'pulling image img failed after 3 attempts: exit code 1: pull failed: registry unavailable',
    );
    expect(existsSync(join(root, 'k'))).to.equal(false);
  });

  it('a hanging pull times out and is retried', async () => {
    const error = await extractor({ STUB_PULL_HANG: '1' }, { attempts: 2, pullTimeoutMs: 200 })
      .copyFromImage('img', '/kubelet', join(root, 'k'), 0o600)
      .catch((e) => e);
    expect((error as Error).message).to.equal(
      'pulling image img failed after 2 attempts: no result within 200 ms',
    );
    expect(calls()).to.have.length(2);
  });

  it('a pull in progress stops when the signal aborts', async () => {
    const abort = new AbortController();
    const started = Date.now();
    setTimeout(() => abort.abort(new Error('cancelled')), 200);
    const error = await extractor({ STUB_PULL_HANG: '1' }, { attempts: 3, pullTimeoutMs: 60_000 })
      .copyFromImage('img', '/kubelet', join(root, 'k'), 0o600, abort.signal)
      .catch((e) => e);
    expect((error as Error).message).to.equal('cancelled');
    expect(Date.now() - started).to.be.below(5_000);
    expect(calls()).to.have.length(1);
  });

  it('unmounts after a failed copy and reports the missing file', async () => {
    const error = await extractor()
      .copyFromImage('img', '/no-such-file', join(root, 'k'), 0o600)
      .catch((e) => e);
    expect(error).to.be.instanceOf(ImageFileNotFoundError);
    expect(calls().map((c) => c[5])).to.deep.equal(['pull', 'mount', 'unmount']);
    expect(readdirSync(scratch())).to.deep.equal([]);
  });

  it('rejects a path that leaves the image before calling ctr', async () => {
    const error = await extractor()
      .copyFromImage('img', '/../../etc/shadow', join(root, 'k'), 0o600)
      .catch((e) => e);
    expect((error as Error).message).to.contain('must not contain ".." segments');
    expect(existsSync(log)).to.equal(false);
  });
});
