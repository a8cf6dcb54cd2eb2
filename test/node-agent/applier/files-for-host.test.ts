/**
 * `files[].hostName` (v1.150.0): a file with a host name is written only on that host; a file
 * whose host name changes away from this host is deleted here, and one that never was here is
 * never touched.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { OperatingSystemConfig, OscFile } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1 } from '../../../hack/landscape/ntv18-fixtures.js';
import { oscForHost } from '../../../node-agent/applier/files-for-host.js';
import { applyTo } from '../support/apply-fixture.js';
import { useTempDirs } from '../support/harness.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function file(path: string, text: string, hostName?: string): OscFile {
  return {
    path,
    permissions: 0o644,
    content: { inline: { encoding: 'b64', data: b64(text) } },
    ...(hostName === undefined ? {} : { hostName }),
  } as OscFile;
}

function withFiles(files: OscFile[], extensionFiles: OscFile[] = []): OperatingSystemConfig {
  const base = oscV1();
  return {
    ...base,
    spec: { ...base.spec, files: [...(base.spec.files ?? []), ...files] },
    status: { ...base.status, extensionFiles },
  };
}

describe('node-agent applier: files per host name', () => {
  const tempDir = useTempDirs();

  it('keeps files without a host name and those of this host, in spec and status', () => {
    const osc = withFiles(
      [file('/a', 'a'), file('/b', 'b', 'node-1'), file('/c', 'c', 'node-2')],
      [file('/d', 'd', 'node-2'), file('/e', 'e', 'node-1')],
    );
    const here = oscForHost(osc, 'node-1');
    expect(here.spec.files?.map((f) => f.path).slice(-2)).to.deep.equal(['/a', '/b']);
    expect(here.status?.extensionFiles?.map((f) => f.path)).to.deep.equal(['/e']);
    const plain = oscV1();
    expect(oscForHost(plain, 'node-1')).to.equal(plain);
  });

  it("writes this host's files only, and deletes one moved to another host", async () => {
    const root = tempDir('gna-root-');
    const images = writeImages(tempDir('gna-images-'), IMAGE_FILES);
    const first = withFiles([file('/etc/mine', 'mine', 'node-1'), file('/etc/theirs', 'theirs', 'node-2')]);
    await applyTo(root, first, images, { hostName: 'node-1' });
    expect(readFileSync(join(root, '/etc/mine'), 'utf8')).to.equal('mine');
    expect(existsSync(join(root, '/etc/theirs'))).to.equal(false);

    const moved = withFiles([file('/etc/mine', 'mine', 'node-2'), file('/etc/theirs', 'theirs', 'node-2')]);
    const { result } = await applyTo(root, moved, images, { hostName: 'node-1' });
    expect(result.plan.files.delete).to.deep.equal(['/etc/mine']);
    expect(existsSync(join(root, '/etc/mine'))).to.equal(false);
    expect(existsSync(join(root, '/etc/theirs'))).to.equal(false);
  });
});
