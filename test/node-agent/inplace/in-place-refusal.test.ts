/**
 * GEP-31 in-place updates are refused, clearly and before anything is written: the error names
 * the capability missing, and the Node patch marks the update failed as machine-controller-manager
 * reads it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { type OperatingSystemConfig, PATH } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1 } from '../../../hack/landscape/ntv18-fixtures.js';
import {
  InPlaceUpdateUnsupportedError,
  inPlaceFailurePatch,
  missingInPlaceCapabilities,
} from '../../../node-agent/inplace/in-place-refusal.js';
import { applyTo } from '../support/apply-fixture.js';
import { useTempDirs } from '../support/harness.js';

function inPlace(
  operatingSystemVersion: string,
  kubelet: string,
  caRotation?: string,
  extraFile?: string,
): OperatingSystemConfig {
  const base = oscV1();
  const files = [...(base.spec.files ?? [])];
  if (extraFile)
    files.push({
      path: extraFile,
      permissions: 0o644,
      content: { inline: { encoding: 'b64', data: Buffer.from('x').toString('base64') } },
    } as (typeof files)[number]);
  return {
    ...base,
    spec: {
      ...base.spec,
      files,
      inPlaceUpdates: {
        operatingSystemVersion,
        kubelet,
        ...(caRotation
          ? { credentialsRotation: { certificateAuthorities: { lastInitiationTime: caRotation } } }
          : {}),
      },
    },
  } as OperatingSystemConfig;
}

describe('node-agent: in-place updates (GEP-31) are refused', () => {
  const tempDir = useTempDirs();

  it('names each missing capability; a pool without in-place updates or an unchanged one needs none', () => {
    const before = inPlace('1443.3.0', '1.33.2');
    expect(missingInPlaceCapabilities(before, inPlace('1443.3.0', '1.33.5'))).to.deep.equal([]);
    expect(missingInPlaceCapabilities(undefined, before)).to.deep.equal([]);
    expect(missingInPlaceCapabilities(oscV1(), before)).to.deep.equal([]);
    expect(
      missingInPlaceCapabilities(before, inPlace('1592.1.0', '1.34.1', '2026-12-01T00:00:00Z')),
    ).to.deep.equal([
      'update the operating system to 1592.1.0',
      'update the kubelet minor version to 1.34.1',
      'rotate the certificate authorities',
    ]);
  });

  it('fails the apply before anything is written, and marks the Node as MCM reads it', async () => {
    const root = tempDir('gna-root-');
    const images = writeImages(tempDir('gna-images-'), IMAGE_FILES);
    await applyTo(root, inPlace('1443.3.0', '1.33.2'), images);
    const lastApplied = readFileSync(join(root, PATH.lastAppliedOsc), 'utf8');
    let error: unknown;
    await applyTo(root, inPlace('1592.1.0', '1.33.2', undefined, '/etc/new-file'), images).catch((e) => {
      error = e;
    });
    expect(error).to.be.instanceOf(InPlaceUpdateUnsupportedError);
    expect((error as Error).message).to.contain('cannot update the operating system to 1592.1.0');
    expect(existsSync(join(root, 'etc/new-file'))).to.equal(false);
    expect(readFileSync(join(root, PATH.lastAppliedOsc), 'utf8')).to.equal(lastApplied);
    expect(inPlaceFailurePatch(error as InPlaceUpdateUnsupportedError)).to.deep.equal({
      metadata: {
        labels: { 'node.machine.sapcloud.io/update-result': 'failed' },
        annotations: { 'node.machine.sapcloud.io/update-failed-reason': (error as Error).message },
      },
    });
  });
});
