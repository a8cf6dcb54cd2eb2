import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { copyFileAtomic } from '../../../node-agent/fs/copy-file.js';
import { ensureDir } from '../../../node-agent/fs/ensure-dir.js';
import {
  DirectoryImageExtractor,
  imageDirectoryName,
} from '../../../node-agent/registry/directory-extractor.js';
import { ImageFileNotFoundError } from '../../../node-agent/registry/image-extractor.js';
import { useTempDirs } from '../support/harness.js';

const modeOf = (path: string) => statSync(path).mode & 0o7777;

describe('node-agent fs: copyFileAtomic (N-TV-17, perm 0750)', () => {
  const tempDir = useTempDirs();
  let dir: string;
  let src: string;

  beforeEach(() => {
    dir = tempDir('gna-copy-');
    src = join(dir, 'src');
    writeFileSync(src, 'foobar');
    chmodSync(src, 0o755);
  });

  it('new file into an existing dir', async () => {
    await copyFileAtomic(src, join(dir, 'dst'), 0o750);
    expect(readFileSync(join(dir, 'dst'), 'utf8')).to.equal('foobar');
    expect(modeOf(join(dir, 'dst'))).to.equal(0o750);
  });

  it('destination in a directory that does not exist yet (created 0755)', async () => {
    const dst = join(dir, 'dst', 'more-foobar');
    await copyFileAtomic(src, dst, 0o750);
    expect(modeOf(dst)).to.equal(0o750);
    expect(modeOf(join(dir, 'dst'))).to.equal(0o755);
  });

  for (const existingMode of [0o755, 0o600]) {
    it(`overwrites an existing destination with mode ${existingMode.toString(8)}`, async () => {
      const dst = join(dir, 'dst');
      writeFileSync(dst, 'other content');
      chmodSync(dst, existingMode);
      await copyFileAtomic(src, dst, 0o750);
      expect(readFileSync(dst, 'utf8')).to.equal('foobar');
      expect(modeOf(dst)).to.equal(0o750);
    });
  }

  it('the source mode does not matter', async () => {
    chmodSync(src, 0o644);
    await copyFileAtomic(src, join(dir, 'dst'), 0o750);
    expect(modeOf(join(dir, 'dst'))).to.equal(0o750);
  });

  it('a directory as source is an error', async () => {
    mkdirSync(join(dir, 'srcdir'));
    const error = await copyFileAtomic(join(dir, 'srcdir'), join(dir, 'dst'), 0o750).catch((e) => e);
    expect((error as Error).message).to.contain('is not a regular file');
  });

  it('a directory as destination is an error', async () => {
    mkdirSync(join(dir, 'dst'));
    const error = await copyFileAtomic(src, join(dir, 'dst'), 0o750).catch((e) => e);
    expect((error as Error).message).to.contain('exists but is not a regular file');
  });

  it('the directory extractor copies DIR/<encoded image>/<path> the same way', async () => {
    const image = 'eu.gcr.io/gardener/hyperkube:v1.28.2';
    expect(imageDirectoryName(image)).to.equal('eu.gcr.io%2Fgardener%2Fhyperkube%3Av1.28.2');
    mkdirSync(join(dir, 'images', imageDirectoryName(image)), { recursive: true });
    writeFileSync(join(dir, 'images', imageDirectoryName(image), 'kubelet'), 'kubelet');
    const extractor = new DirectoryImageExtractor(join(dir, 'images'));
    await extractor.copyFromImage(image, '/kubelet', join(dir, 'opt/bin/kubelet'), 0o755);
    expect(readFileSync(join(dir, 'opt/bin/kubelet'), 'utf8')).to.equal('kubelet');
    expect(modeOf(join(dir, 'opt/bin/kubelet'))).to.equal(0o755);
    const missing = await extractor.copyFromImage(image, '/nope', join(dir, 'x'), 0o600).catch((e) => e);
    expect(missing).to.be.instanceOf(ImageFileNotFoundError);
    const outside = await extractor.copyFromImage('..', '/x', join(dir, 'x'), 0o600).catch((e) => e);
    expect((outside as Error).message).to.contain('invalid image name');
  });
});

describe('node-agent fs: ensureDir', () => {
  const tempDir = useTempDirs();

  it('creates missing parents with the exact mode and leaves existing ones alone', async () => {
    const dir = tempDir('gna-dir-');
    chmodSync(dir, 0o711);
    const old = process.umask(0o077);
    try {
      await ensureDir(join(dir, 'a/b/c'));
    } finally {
      process.umask(old);
    }
    for (const d of ['a', 'a/b', 'a/b/c']) expect(modeOf(join(dir, d))).to.equal(0o755);
    expect(modeOf(dir)).to.equal(0o711);
  });
});
