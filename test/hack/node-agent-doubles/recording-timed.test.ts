/** `--systemd=record-timed:FILE`: the recording with the time of each call (`"at"`). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { DOUBLE_BACKENDS } from '../../../hack/node-agent-doubles/double-backends.js';
import { parseRecording, RecordingSystemd } from '../../../hack/node-agent-doubles/recording-systemd.js';
import { systemdFrom } from '../../../node-agent/cli/backends.js';
import { UsageError } from '../../../runtime/cli/exit-codes.js';
import { silentLogger } from '../../../runtime/logging.js';
import { useTempDirs } from '../../node-agent/support/harness.js';

const io = () => {
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  return { stdout: sink, stderr: sink, env: {}, backends: DOUBLE_BACKENDS };
};

describe('node-agent systemd: timed recording', () => {
  const tempDir = useTempDirs();

  it('adds "at" to every line, after the op, and parses back', async () => {
    const file = join(tempDir(), 'ops.jsonl');
    let t = Date.parse('2026-01-01T00:00:00.000Z');
    const now = () => {
      t += 1500;
      return new Date(t);
    };
    const systemd = new RecordingSystemd(file, { timestamps: true, now });
    await systemd.daemonReload();
    await systemd.restart('kubelet.service');
    expect(readFileSync(file, 'utf8')).to.equal(
      [
        '{"op":"daemon-reload","at":"2026-01-01T00:00:01.500Z"}',
        '{"op":"restart","unit":"kubelet.service","at":"2026-01-01T00:00:03.000Z"}',
        '',
      ].join('\n'),
    );
    expect(parseRecording(readFileSync(file, 'utf8'))).to.deep.equal([
      { op: 'daemon-reload', at: '2026-01-01T00:00:01.500Z' },
      { op: 'restart', unit: 'kubelet.service', at: '2026-01-01T00:00:03.000Z' },
    ]);
  });

  it('--systemd=record-timed:FILE records with times, record:FILE without', async () => {
    const dir = tempDir();
    const before = Date.now();
    await systemdFrom(`record-timed:${join(dir, 'timed')}`, dir, io(), silentLogger).restart('a.service');
    await systemdFrom(`record:${join(dir, 'plain')}`, dir, io(), silentLogger).restart('a.service');
    const [timed] = parseRecording(readFileSync(join(dir, 'timed'), 'utf8'));
    expect(timed).to.include({ op: 'restart', unit: 'a.service' });
    expect(Date.parse(timed?.at ?? '')).to.be.within(before, Date.now());
    expect(readFileSync(join(dir, 'plain'), 'utf8')).to.equal('{"op":"restart","unit":"a.service"}\n');
    expect(() => systemdFrom('record-timed:', dir, io(), silentLogger)).to.throw(
      UsageError,
      /"record-timed:FILE"/,
    );
  });
});
