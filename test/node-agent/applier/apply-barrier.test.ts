/**
 * The applier's barriers (what the real-node tests kill the agent at): an armed point holds the
 * apply, after what came before it and before anything after it, until its file is removed; an
 * abort ends the wait; without the environment variable there is no barrier at all.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { PATH } from '../../../api/index.js';
import { eventually, sleep } from '../../../hack/landscape/eventually.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1 } from '../../../hack/landscape/ntv18-fixtures.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import {
  APPLY_BARRIERS_ENV,
  applyBarrierFromEnv,
  barrierFileName,
  fileBarrier,
} from '../../../node-agent/applier/apply-barrier.js';
import { PROGRESS_FILE } from '../../../node-agent/applier/progress-file.js';
import { applyTo, opText } from '../support/apply-fixture.js';
import { useTempDirs } from '../support/harness.js';

describe('node-agent applier: barriers at the crash points', () => {
  const tempDir = useTempDirs();
  let root: string;
  let images: string;
  let barriers: string;

  beforeEach(() => {
    root = tempDir('gna-root-');
    images = writeImages(tempDir('gna-images-'), IMAGE_FILES);
    barriers = tempDir('gna-barriers-');
  });

  it('names a point as a file name', () => {
    expect(barrierFileName('persisted')).to.equal('persisted');
    expect(barrierFileName('before restart valitail.service')).to.equal('before-restart-valitail.service');
    expect(barrierFileName('intent write-drop-in a.service/10-x.conf')).to.equal(
      'intent-write-drop-in-a.service-10-x.conf',
    );
  });

  it('holds the apply at an armed point, with the plan persisted and no unit command run, until released', async () => {
    const systemd = new MemorySystemd();
    const armed = join(barriers, 'persisted');
    writeFileSync(armed, '');
    let done = false;
    const apply = applyTo(root, oscV1(), images, { systemd, barrier: fileBarrier(barriers, 5) }).then((r) => {
      done = true;
      return r;
    });
    await eventually('the apply to hold at persisted', () => existsSync(`${armed}.reached`), 10_000, 5);
    expect(readFileSync(`${armed}.reached`, 'utf8')).to.equal(`${process.pid}\n`);
    await sleep(100);
    expect(done, 'the apply while held').to.equal(false);
    expect(existsSync(join(root, PROGRESS_FILE)), 'the progress file while held').to.equal(true);
    expect(systemd.ops).to.deep.equal([]);
    rmSync(armed);
    const { result } = await apply;
    expect(result.outcome).to.equal('applied');
    expect(systemd.ops.map(opText)).to.include('daemon-reload');
    expect(existsSync(join(root, PATH.lastAppliedOsc))).to.equal(true);
  });

  it('holds before a unit command with every earlier command run', async () => {
    const systemd = new MemorySystemd();
    const armed = join(barriers, 'before-stop-unit2');
    writeFileSync(armed, '');
    const apply = applyTo(root, oscV1(), images, { systemd, barrier: fileBarrier(barriers, 5) });
    await eventually('the apply to hold before stop unit2', () => existsSync(`${armed}.reached`), 10_000, 5);
    const held = systemd.ops.map(opText);
    expect(held.slice(-2)).to.deep.equal(['daemon-reload', 'restart unit1']);
    rmSync(armed);
    expect((await apply).ops.slice(held.length)).to.deep.equal([
      'stop unit2',
      'restart unit5',
      'restart unit6',
      'restart unit7',
      'restart unit3',
      'restart unit4',
      'restart unit8',
      'restart unit9',
    ]);
  });

  it('an abort ends the wait, the progress kept for the apply that resumes', async () => {
    const abort = new AbortController();
    writeFileSync(join(barriers, 'persisted'), '');
    const apply = applyTo(root, oscV1(), images, {
      barrier: fileBarrier(barriers, 5),
      signal: abort.signal,
    }).catch((e: unknown) => e as Error);
    await eventually('the hold', () => existsSync(join(barriers, 'persisted.reached')), 10_000, 5);
    abort.abort(new Error('stopping'));
    expect(((await apply) as Error).message).to.equal('stopping');
    expect(existsSync(join(root, PROGRESS_FILE))).to.equal(true);
  });

  it('exists only when the environment names a directory; unarmed points pass', async () => {
    expect(applyBarrierFromEnv({})).to.equal(undefined);
    expect(applyBarrierFromEnv({ [APPLY_BARRIERS_ENV]: '' })).to.equal(undefined);
    const barrier = applyBarrierFromEnv({ [APPLY_BARRIERS_ENV]: barriers });
    mkdirSync(barriers, { recursive: true });
    await barrier?.('persisted');
    expect(existsSync(join(barriers, 'persisted.reached'))).to.equal(false);
  });
});
