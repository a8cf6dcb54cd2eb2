import { existsSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { PATH } from '../../../api/index.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { cleanCloudConfigDownloader } from '../../../node-agent/bootstrap/cloud-config-downloader-cleaner.js';
import { snapshotTree, useTempDirs } from '../support/harness.js';

// Upstream: gardener v1.91.4
// cmd/gardener-node-agent/app/bootstrappers/cloud_config_downloader_cleaner.go (N-TV-15).
describe('node-agent bootstrap: CloudConfigDownloaderCleaner', () => {
  const tempDir = useTempDirs();
  let root: string;
  let systemd: MemorySystemd;
  const clean = () => cleanCloudConfigDownloader({ root, systemd });
  const downloaderDir = () => join(root, PATH.downloaderDir);
  const wantsLink = () => join(root, PATH.downloaderUnitWantsLink);

  beforeEach(() => {
    root = tempDir('gna-ccd-');
    systemd = new MemorySystemd();
  });

  const withDownloaderDir = () => {
    mkdirSync(join(downloaderDir(), 'credentials'), { recursive: true });
    writeFileSync(join(root, PATH.downloaderToken), 'token');
    writeFileSync(join(root, PATH.downloaderScript), '#!/bin/bash');
  };

  it('dir and wants link: both gone, one daemon-reload', async () => {
    withDownloaderDir();
    mkdirSync(dirname(wantsLink()), { recursive: true });
    writeFileSync(join(root, PATH.downloaderUnitFile), '[Unit]');
    symlinkSync(PATH.downloaderUnitFile, wantsLink());
    expect(await clean()).to.deep.equal({ removedDirectory: true, removedWantsLink: true });
    expect(existsSync(downloaderDir())).to.equal(false);
    expect(() => lstatSync(wantsLink())).to.throw();
    expect(systemd.ops).to.deep.equal([{ op: 'daemon-reload' }]);
    // The unit file itself is not the cleaner's: the OSC's removal of the unit takes care of it.
    expect(existsSync(join(root, PATH.downloaderUnitFile))).to.equal(true);
  });

  it('also removes a dangling link (a link whose target is gone)', async () => {
    mkdirSync(dirname(wantsLink()), { recursive: true });
    symlinkSync('/nowhere/cloud-config-downloader.service', wantsLink());
    expect(await clean()).to.deep.equal({ removedDirectory: false, removedWantsLink: true });
    expect(() => lstatSync(wantsLink())).to.throw();
    expect(systemd.ops).to.deep.equal([{ op: 'daemon-reload' }]);
  });

  it('only the dir: dir gone, no systemd actions', async () => {
    withDownloaderDir();
    expect(await clean()).to.deep.equal({ removedDirectory: true, removedWantsLink: false });
    expect(existsSync(downloaderDir())).to.equal(false);
    expect(systemd.ops).to.deep.equal([]);
  });

  it('nothing: success, no actions, nothing created', async () => {
    expect(await clean()).to.deep.equal({ removedDirectory: false, removedWantsLink: false });
    expect(systemd.ops).to.deep.equal([]);
    expect(snapshotTree(root)).to.deep.equal({});
  });

  it('a downloader dir that is a symlink: the link goes, its target stays', async () => {
    const outside = tempDir('gna-outside-');
    writeFileSync(join(outside, 'keep'), 'x');
    mkdirSync(join(root, 'var/lib'), { recursive: true });
    symlinkSync(outside, downloaderDir());
    await clean();
    expect(() => lstatSync(downloaderDir())).to.throw();
    expect(snapshotTree(outside)).to.deep.equal({ keep: { type: 'file', mode: '0644', content: 'x' } });
  });

  it('refuses a path that leads out of the root through a symlinked parent', async () => {
    const outside = tempDir('gna-outside-');
    mkdirSync(join(outside, 'cloud-config-downloader'));
    mkdirSync(join(root, 'var'), { recursive: true });
    symlinkSync(outside, join(root, 'var/lib'));
    let error: Error | undefined;
    await clean().catch((e: Error) => {
      error = e;
    });
    expect(error?.message).to.contain('resolves outside the root');
    expect(existsSync(join(outside, 'cloud-config-downloader'))).to.equal(true);
  });

  it('a failing daemon-reload fails the cleaner (it runs again on the next start)', async () => {
    mkdirSync(dirname(wantsLink()), { recursive: true });
    symlinkSync(PATH.downloaderUnitFile, wantsLink());
    systemd = new MemorySystemd(() => new Error('reload failed'));
    let error: Error | undefined;
    await clean().catch((e: Error) => {
      error = e;
    });
    expect(error?.message).to.equal('reload failed');
  });
});
