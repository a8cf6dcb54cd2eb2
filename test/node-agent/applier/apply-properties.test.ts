import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { decodeOperatingSystemConfig, type OperatingSystemConfig, PATH } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { collectAllFiles } from '../../../node-agent/planner/collect-files.js';
import { computePlan } from '../../../node-agent/planner/compute-plan.js';
import { mergedUnitsOf } from '../../../node-agent/planner/merge-units.js';
import { isEmptyPlan } from '../../../node-agent/planner/plan.js';
import { applyTo, opText } from '../support/apply-fixture.js';
import { fileAt, snapshotTree, type TreeEntry, useTempDirs } from '../support/harness.js';
import { fixedOwnershipOscArbitrary, IMAGES, oscArbitrary } from '../support/osc-arbitrary.js';
import { equalButOneIdempotentRepeat, isUnitCommand, withoutNoOpStops } from '../support/systemd-effects.js';

class SimulatedCrash extends Error {}

/** A crash hook that throws at its n-th call (0-based); n beyond the last call means no crash. */
function crashAt(n: number) {
  let calls = 0;
  return () => {
    if (calls++ === n) throw new SimulatedCrash(`crash at point ${n}`);
  };
}

/** Runs an apply that may crash; the systemd calls it made either way. */
async function crashingApply(
  root: string,
  osc: OperatingSystemConfig,
  images: string,
  n: number,
  systemd = new MemorySystemd(),
) {
  let crashed = false;
  try {
    await applyTo(root, osc, images, { systemd, crashPoint: crashAt(n) });
  } catch (e) {
    if (!(e instanceof SimulatedCrash)) throw e;
    crashed = true;
  }
  return { crashed, ops: systemd.ops.map(opText) };
}

const filesOnly = (tree: Record<string, TreeEntry>) =>
  Object.fromEntries(Object.entries(tree).filter(([, entry]) => entry.type !== 'dir'));

function expectTreeHas(root: string, osc: OperatingSystemConfig): void {
  for (const file of collectAllFiles(osc)) {
    expect(fileAt(root, file.path).mode, file.path).to.equal(
      (file.permissions ?? 0o600).toString(8).padStart(4, '0'),
    );
  }
  for (const unit of mergedUnitsOf(osc)) {
    const unitFile = join(PATH.systemdUnitDir, unit.name);
    if (unit.content !== undefined) {
      expect(fileAt(root, unitFile), unit.name).to.deep.equal({ mode: '0600', content: unit.content });
    }
    for (const d of unit.dropIns) expect(fileAt(root, `${unitFile}.d/${d.name}`).content).to.equal(d.content);
  }
}

describe('node-agent applier: properties', function () {
  this.timeout(300_000);
  const tempDir = useTempDirs();
  let images: string;
  beforeEach(() => {
    images = writeImages(tempDir('gna-images-'), IMAGES);
  });

  it('(a) after applying A then B: planning again is empty, re-applying does nothing, the tree holds B', async () => {
    await fc.assert(
      fc.asyncProperty(oscArbitrary(), oscArbitrary(), async (a, b) => {
        const root = tempDir('gna-prop-');
        await applyTo(root, a, images);
        await applyTo(root, b, images);

        const lastApplied = decodeOperatingSystemConfig(fileAt(root, PATH.lastAppliedOsc).content);
        expect(lastApplied.ok && isEmptyPlan(computePlan(lastApplied.value, b))).to.equal(true);
        const before = snapshotTree(root);
        const again = await applyTo(root, b, images);
        expect(again.result.outcome).to.equal('up-to-date');
        expect(again.ops).to.deep.equal([]);
        expect(snapshotTree(root)).to.deep.equal(before);
        expectTreeHas(root, b);
      }),
      { numRuns: 60 },
    );
  });

  it('(b) an apply crashed at any point and resumed ends in the same tree, each restart and stop run once', async () => {
    await fc.assert(
      fc.asyncProperty(oscArbitrary(), oscArbitrary(), fc.nat({ max: 100 }), async (a, b, n) => {
        const clean = tempDir('gna-prop-');
        const cleanSystemd = new MemorySystemd();
        await applyTo(clean, a, images, { systemd: cleanSystemd });
        const cleanFrom = cleanSystemd.ops.length;
        await applyTo(clean, b, images, { systemd: cleanSystemd });
        const expected = withoutNoOpStops(cleanSystemd.ops.map(opText), cleanFrom);

        const root = tempDir('gna-prop-');
        // one systemd for the crashed apply and its resumption: its state outlives the agent
        const systemd = new MemorySystemd();
        await applyTo(root, a, images, { systemd });
        const before = systemd.ops.length;
        const first = await crashingApply(root, b, images, n, systemd);
        if (first.crashed) await applyTo(root, b, images, { systemd });

        expect(snapshotTree(root)).to.deep.equal(snapshotTree(clean));
        const all = withoutNoOpStops(systemd.ops.map(opText), before);
        expect(all.filter(isUnitCommand), `unit commands, crash at ${n}`).to.deep.equal(
          expected.filter(isUnitCommand),
        );
        expect(equalButOneIdempotentRepeat(all, expected), `crash at ${n}`).to.equal(true);
      }),
      { numRuns: 80 },
    );
  });

  it('(c) a crashed apply superseded by a new OSC leaves no trace of the superseded one', async () => {
    const osc = fixedOwnershipOscArbitrary(
      ['a.service', 'gardener-node-init.service'],
      ['b.service', 'c.service'],
    );
    await fc.assert(
      fc.asyncProperty(osc, osc, osc, fc.nat({ max: 100 }), async (a, b, c, n) => {
        const direct = tempDir('gna-prop-');
        await applyTo(direct, a, images);
        await applyTo(direct, c, images);

        const root = tempDir('gna-prop-');
        await applyTo(root, a, images);
        await crashingApply(root, b, images, n);
        await applyTo(root, c, images);

        // Empty directories of removed files stay (as upstream), so only files are compared.
        expect(filesOnly(snapshotTree(root))).to.deep.equal(filesOnly(snapshotTree(direct)));
      }),
      { numRuns: 80 },
    );
  });
});
