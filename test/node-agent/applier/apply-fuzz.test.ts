/**
 * Fuzzing an apply with OSCs built to fail halfway (support/hostile-osc-arbitrary.ts) on a node
 * that already runs another OSC. The property: the apply succeeds and the tree holds the OSC (exit
 * 0), or it is rejected naming a field (exit 2) or cannot get an image (exit 1), and then nothing on
 * the node changed, not even outside the root. Never a half-apply.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { type OperatingSystemConfig, PATH, ValidationError } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { collectAllFiles } from '../../../node-agent/planner/collect-files.js';
import { mergedUnitsOf } from '../../../node-agent/planner/merge-units.js';
import { applyTo } from '../support/apply-fixture.js';
import { fileAt, snapshotTree, useTempDirs } from '../support/harness.js';
import { hostileOscArbitrary, prepareNode } from '../support/hostile-osc-arbitrary.js';
import { IMAGES, oscArbitrary } from '../support/osc-arbitrary.js';

type Outcome = 'applied' | 'rejected (exit 2)' | 'image failed (exit 1)';

function expectTreeIs(root: string, osc: OperatingSystemConfig): void {
  for (const file of collectAllFiles(osc)) {
    const onDisk = fileAt(root, file.path);
    expect(onDisk.mode, file.path).to.equal((file.permissions ?? 0o600).toString(8).padStart(4, '0'));
    const { inline, imageRef } = file.content;
    const expected = inline
      ? Buffer.from(inline.data, inline.encoding === 'b64' ? 'base64' : 'utf8').toString('utf8')
      : (IMAGES as Record<string, Record<string, string>>)[imageRef!.image]![imageRef!.filePathInImage];
    expect(onDisk.content, file.path).to.equal(expected);
  }
  for (const unit of mergedUnitsOf(osc)) {
    const unitFile = join(PATH.systemdUnitDir, unit.name);
    if (unit.content !== undefined) expect(fileAt(root, unitFile).content, unit.name).to.equal(unit.content);
    for (const d of unit.dropIns) expect(fileAt(root, `${unitFile}.d/${d.name}`).content).to.equal(d.content);
  }
  expect(readFileSync(join(root, PATH.lastAppliedOsc), 'utf8')).to.contain('kind: OperatingSystemConfig');
}

describe('node-agent applier: fuzzing for half-applies', function () {
  this.timeout(300_000);
  const tempDir = useTempDirs();

  it('an apply either holds the whole OSC or changes nothing', async () => {
    const images = writeImages(tempDir('gna-images-'), IMAGES);
    const outcomes: Record<Outcome, number> = {
      applied: 0,
      'rejected (exit 2)': 0,
      'image failed (exit 1)': 0,
    };
    await fc.assert(
      fc.asyncProperty(oscArbitrary(), hostileOscArbitrary(), async (previous, next) => {
        const root = tempDir('gna-fuzz-');
        const outside = tempDir('gna-outside-');
        await applyTo(root, previous, images);
        prepareNode(root, outside);
        const before = snapshotTree(root);
        const error = await applyTo(root, next, images).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(snapshotTree(outside), 'nothing written outside the root').to.deep.equal({});
        if (error === undefined) {
          outcomes.applied++;
          expectTreeIs(root, next);
          return;
        }
        if (error instanceof ValidationError) {
          outcomes['rejected (exit 2)']++;
          expect(
            error.errors.every((e) => e.field !== ''),
            error.message,
          ).to.equal(true);
        } else {
          expect((error as Error).message, 'the only other failure is an image that cannot be had').to.match(
            /image img:missing has no file|img%3Amissing/,
          );
          outcomes['image failed (exit 1)']++;
        }
        expect(snapshotTree(root), (error as Error).message).to.deep.equal(before);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
    );
    if (process.env.FUZZ_RUNS) console.log(JSON.stringify(outcomes));
    for (const [outcome, count] of Object.entries(outcomes)) expect(count, outcome).to.be.above(0);
  });
});
