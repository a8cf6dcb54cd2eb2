/**
 * The progress journal (node-agent/applier/progress-journal.ts): the plan is written once per
 * apply and every step adds one line, a line cut off by a crash is dropped (and cut off the file
 * before the resumed apply appends), and an intent stays in force until its step is checked off.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { HostRoot } from '../../../node-agent/applier/host-root.js';
import { PROGRESS_FILE, readProgress } from '../../../node-agent/applier/progress-file.js';
import { decodeJournal, PROGRESS_JOURNAL } from '../../../node-agent/applier/progress-journal.js';
import { applyTo } from '../support/apply-fixture.js';
import { useTempDirs } from '../support/harness.js';

const before = {
  loadState: 'loaded',
  activeState: 'active',
  subState: 'running',
  invocationId: 'a'.repeat(32),
  activeEnterTimestampMonotonic: 1,
  inactiveEnterTimestampMonotonic: 0,
  inactiveExitTimestampMonotonic: 1,
};
const intent = (step: string) => ({ step, unit: step.split(' ')[1]!, before });
const line = (entry: unknown) => `${JSON.stringify(entry)}\n`;

function oscWithFiles(n: number): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: 'osc', namespace: 'shoot--foo--bar' },
    spec: {
      type: 't',
      purpose: 'reconcile',
      files: Array.from({ length: n }, (_, i) => ({
        path: `/etc/d${i % 7}/f${i}`,
        content: { inline: { encoding: '' as const, data: `file ${i}` } },
      })),
      units: [{ name: 'a.service', enable: true, command: 'start', content: '#a' }],
    },
  } as OperatingSystemConfig;
}

describe('node-agent applier: the progress journal', () => {
  const tempDir = useTempDirs();

  describe('reading', () => {
    const header = line({ oscChecksum: 'c1' });

    it('collects the steps checked off and the intents not resolved since', () => {
      const text =
        header +
        line({ done: 'write-file /a' }) +
        line({ intent: intent('restart a.service') }) +
        line({ done: 'restart a.service' }) +
        line({ intent: intent('restart b.service') }) +
        line({ clear: 'restart b.service' }) +
        line({ intent: intent('stop c.service') });
      const state = decodeJournal(text, 'c1');
      expect(state.completed).to.deep.equal(['write-file /a', 'restart a.service']);
      expect(state.inFlight.map((i) => i.step)).to.deep.equal(['stop c.service']);
      expect(state.validBytes).to.equal(Buffer.byteLength(text));
    });

    it('drops a last line cut off by a crash, and everything after a line that is not JSON', () => {
      const whole = header + line({ done: 'write-file /a' });
      expect(decodeJournal(`${whole}{"done":"write-file /ab`, 'c1')).to.deep.include({
        completed: ['write-file /a'],
        validBytes: Buffer.byteLength(whole),
      });
      expect(
        decodeJournal(`${whole}\0\0\0\n${line({ done: 'write-file /b' })}`, 'c1').completed,
      ).to.deep.equal(['write-file /a']);
    });

    it('ignores the journal of another progress file', () => {
      expect(decodeJournal(header + line({ done: 'write-file /a' }), 'c2')).to.deep.equal({
        completed: [],
        inFlight: [],
        validBytes: 0,
      });
    });
  });

  it('writes the plan once: every step appends one line to the journal, the progress file stays as persisted', async () => {
    const root = tempDir('gna-journal-');
    const images = writeImages(tempDir('gna-images-'), {});
    const progressPath = join(root, PROGRESS_FILE);
    const journalPath = join(root, PROGRESS_JOURNAL);
    let persisted: { ino: number; mtimeMs: number; size: number } | undefined;
    const journalSizes: number[] = [];
    await applyTo(root, oscWithFiles(60), images, {
      crashPoint: (where) => {
        const s = statSync(progressPath);
        const now = { ino: s.ino, mtimeMs: s.mtimeMs, size: s.size };
        if (where === 'persisted') persisted = now;
        else expect(now, where).to.deep.equal(persisted);
        if (where.startsWith('checked-off')) journalSizes.push(statSync(journalPath).size);
      },
    });
    // 60 files, the unit file, its (absent) drop-in directory, enable, daemon-reload, the restart
    expect(journalSizes).to.have.length(65);
    const growth = journalSizes.slice(1).map((size, i) => size - journalSizes[i]!);
    // one line per step (two around a restart: its intent and its check-off), whatever the plan's size
    expect(persisted!.size).to.be.above(3000);
    expect(Math.max(...growth)).to.be.below(700);
  });

  it('a resumed apply cuts a torn last line off before it appends', async () => {
    const root = tempDir('gna-journal-');
    const images = writeImages(tempDir('gna-images-'), {});
    const osc = oscWithFiles(3);
    await applyTo(root, osc, images, {
      crashPoint: (where) => {
        if (where === 'checked-off write-file /etc/d1/f1') throw new Error('killed');
      },
    }).catch(() => undefined);
    const journalPath = join(root, PROGRESS_JOURNAL);
    writeFileSync(journalPath, `${readFileSync(journalPath, 'utf8')}{"done":"write-fi`);
    const systemd = new MemorySystemd();
    const resumed = await applyTo(root, osc, images, {
      systemd,
      crashPoint: (where) => {
        if (where === 'checked-off write-file /etc/d2/f2') throw new Error('killed again');
      },
    }).catch((e) => e);
    expect((resumed as Error).message).to.equal('killed again');
    const progress = await readProgress(new HostRoot(root));
    expect(progress?.completed).to.deep.equal([
      'write-file /etc/d0/f0',
      'write-file /etc/d1/f1',
      'write-file /etc/d2/f2',
    ]);
  });
});
