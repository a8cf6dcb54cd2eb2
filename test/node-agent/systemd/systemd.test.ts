import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { parseRecording, RecordingSystemd } from '../../../hack/node-agent-doubles/recording-systemd.js';
import { readSystemdFaults } from '../../../hack/node-agent-doubles/systemd-faults.js';
import { SystemctlSystemd } from '../../../node-agent/systemd/systemctl-systemd.js';
import { createLogger } from '../../../runtime/logging.js';
import { useTempDirs } from '../support/harness.js';
import { loggedCalls, stubEnv } from '../support/stubs.js';

describe('node-agent systemd', () => {
  const tempDir = useTempDirs();

  it('the recording implementation appends one JSON object per call, enable/disable one per unit', async () => {
    const file = join(tempDir(), 'ops.jsonl');
    const systemd = new RecordingSystemd(file);
    await systemd.enable(['a.service', 'b.service']);
    await systemd.disable(['c.service']);
    await systemd.daemonReload();
    await systemd.start('a.service');
    await systemd.stop('b.service');
    await systemd.restart('x.service');
    expect(readFileSync(file, 'utf8')).to.equal(
      [
        '{"op":"enable","unit":"a.service"}',
        '{"op":"enable","unit":"b.service"}',
        '{"op":"disable","unit":"c.service"}',
        '{"op":"daemon-reload"}',
        '{"op":"start","unit":"a.service"}',
        '{"op":"stop","unit":"b.service"}',
        '{"op":"restart","unit":"x.service"}',
        '',
      ].join('\n'),
    );
    writeFileSync(file, '{"op":"daemon-reload"}\n{"op":"resta', { flag: 'a' });
    expect(parseRecording(readFileSync(file, 'utf8')).at(-1)).to.deep.equal({ op: 'daemon-reload' });
  });

  it('the recorders answer unitStatus as systemd would after the recorded calls', async () => {
    const file = join(tempDir(), 'ops.jsonl');
    const first = new RecordingSystemd(file);
    expect((await first.unitStatus('a.service')).invocationId).to.equal('');
    await first.restart('a.service');
    const started = await first.unitStatus('a.service');
    expect(started.activeState).to.equal('active');
    expect(started.invocationId).to.match(/^[0-9a-f]{32}$/);
    // another process reading the same recording sees the same state
    const second = new RecordingSystemd(file);
    expect(await second.unitStatus('a.service')).to.deep.equal(started);
    await second.restart('a.service');
    const again = await second.unitStatus('a.service');
    expect(again.invocationId).to.not.equal(started.invocationId);
    expect(again.inactiveExitTimestampMonotonic).to.be.above(started.inactiveExitTimestampMonotonic);
    await second.stop('a.service');
    const stopped = await second.unitStatus('a.service');
    expect(stopped.activeState).to.equal('inactive');
    expect(stopped.inactiveEnterTimestampMonotonic).to.be.above(again.inactiveEnterTimestampMonotonic);
    // a failed call of the in-memory systemd has no effect
    const memory = new MemorySystemd((op) => (op.op === 'restart' ? new Error('no') : undefined));
    await memory.restart('b.service').catch(() => undefined);
    expect((await memory.unitStatus('b.service')).invocationId).to.equal('');
  });

  it('injected faults: a restart fails (unit failed) or leaves the unit inactive, recorded with the fault', async () => {
    const dir = tempDir();
    const file = join(dir, 'ops.jsonl');
    const rules = join(dir, 'faults.json');
    const root = join(dir, 'root');
    mkdirSync(join(root, 'etc'), { recursive: true });
    writeFileSync(join(root, 'etc/kubelet.yaml'), 'maxPods: 110\n');
    writeFileSync(
      rules,
      JSON.stringify([
        { unit: 'a.service', effect: 'fail' },
        {
          unit: 'kubelet.service',
          effect: 'inactive',
          whenFileContains: { path: '/etc/kubelet.yaml', text: 'maxPods: 120' },
        },
      ]),
    );
    const systemd = new RecordingSystemd(file, { faults: () => readSystemdFaults(rules), root });
    const error = await systemd.restart('a.service').catch((e: Error) => e);
    expect((error as Error).message).to.match(/Job for a\.service failed/);
    expect(await systemd.unitStatus('a.service')).to.include({ activeState: 'failed', subState: 'failed' });
    // the condition does not hold: an ordinary restart
    await systemd.restart('kubelet.service');
    expect((await systemd.unitStatus('kubelet.service')).activeState).to.equal('active');
    // the bad configuration is on disk: the restart "succeeds", the unit is not running
    writeFileSync(join(root, 'etc/kubelet.yaml'), 'maxPods: 120\n');
    await systemd.restart('kubelet.service');
    const broken = await systemd.unitStatus('kubelet.service');
    expect(broken.activeState).to.equal('inactive');
    expect(broken.invocationId).to.match(/^[0-9a-f]{32}$/);
    // the rules are read at every call: without them the next restart works
    writeFileSync(rules, '[]');
    await systemd.restart('a.service');
    expect((await systemd.unitStatus('a.service')).activeState).to.equal('active');
    expect(parseRecording(readFileSync(file, 'utf8')).map((op) => op.fault ?? '-')).to.deep.equal([
      'fail',
      '-',
      'inactive',
      '-',
    ]);
  });

  it('fault rules are validated, naming the field; a missing file means no faults', () => {
    const dir = tempDir();
    expect(readSystemdFaults(join(dir, 'none.json'))).to.deep.equal([]);
    writeFileSync(join(dir, 'bad.json'), JSON.stringify([{ unit: 'a', effect: 'explode' }]));
    expect(() => readSystemdFaults(join(dir, 'bad.json'))).to.throw(/bad\.json: 0\.effect: /);
  });

  it('the in-memory recorder records and can fail a chosen call', async () => {
    const systemd = new MemorySystemd((op) =>
      'unit' in op && op.unit === 'bad' ? new Error('nope') : undefined,
    );
    await systemd.enable(['a']);
    const error = await systemd.restart('bad').catch((e) => e);
    expect((error as Error).message).to.equal('nope');
    expect(systemd.ops).to.deep.equal([
      { op: 'enable', unit: 'a' },
      { op: 'restart', unit: 'bad' },
    ]);
  });

  describe('systemctl (stub on PATH)', function () {
    this.timeout(20_000);
    let log: string;
    const systemctl = (
      env: NodeJS.ProcessEnv = {},
      jobWaitMs = 300,
      logger = createLogger({ level: 'silent' }),
    ) =>
      new SystemctlSystemd({
        env: stubEnv({ STUB_LOG: log, ...env }),
        jobWaitMs,
        callTimeoutMs: 300,
        logger,
      });
    const calls = () => (existsSync(log) ? loggedCalls(readFileSync(log, 'utf8')) : []);

    beforeEach(() => {
      log = join(tempDir(), 'argv.log');
    });

    it('passes the documented arguments', async () => {
      const s = systemctl();
      await s.daemonReload();
      await s.enable(['a.service', 'b.service']);
      await s.disable(['c.service']);
      await s.enable([]);
      await s.start('a.service');
      await s.stop('b.service');
      await s.restart('-weird.service');
      expect(calls()).to.deep.equal([
        ['--no-ask-password', 'daemon-reload'],
        ['--no-ask-password', 'enable', '--force', '--no-reload', '--', 'a.service', 'b.service'],
        ['--no-ask-password', 'disable', '--no-reload', '--', 'c.service'],
        ['--no-ask-password', '--job-mode=replace', 'start', '--', 'a.service'],
        ['--no-ask-password', '--job-mode=replace', 'stop', '--', 'b.service'],
        ['--no-ask-password', '--job-mode=replace', 'restart', '--', '-weird.service'],
      ]);
    });

    it('errors name the unit and carry what systemctl said', async () => {
      const s = systemctl({ STUB_EXIT: '5', STUB_STDERR: 'Unit kubelet.service not found.' });
      const restart = await s.restart('kubelet.service').catch((e) => e);
      expect((restart as Error).message).to.equal(
        'restart failed for kubelet.service: exit code 5: Unit kubelet.service not found.',
      );
      const enable = await s.enable(['kubelet.service']).catch((e) => e);
      expect((enable as Error).message).to.contain('unable to enable unit kubelet.service');
      const reload = await s.daemonReload().catch((e) => e);
      expect((reload as Error).message).to.contain('systemd daemon-reload failed');
    });

    it('a job still running after the wait cap is logged and counted as done', async () => {
      const lines: string[] = [];
      const destination = new Writable({
        write(chunk, _e, cb) {
          lines.push(String(chunk));
          cb();
        },
      });
      const s = systemctl({ STUB_HANG: '1' }, 300, createLogger({ destination }));
      const started = Date.now();
      await s.restart('slow.service');
      expect(Date.now() - started).to.be.lessThan(5_000);
      expect(lines.join('')).to.contain(
        'Systemd operation is blocking for more than 0.3s, aborting and continuing anyways',
      );
      expect(lines.join('')).to.contain('slow.service');
    });

    it("reads a unit's state with systemctl show, as systemd prints it", async () => {
      const shown = [
        'LoadState=loaded',
        'ActiveState=active',
        'SubState=running',
        'Type=notify',
        'Result=success',
        'ExecMainCode=0',
        'ExecMainStatus=0',
        'InvocationID=0f1e2d3c4b5a69788796a5b4c3d2e1f0',
        'ActiveEnterTimestampMonotonic=8123456',
        'InactiveEnterTimestampMonotonic=0',
        'InactiveExitTimestampMonotonic=8000001',
      ].join('\n');
      const status = await systemctl({ STUB_STDOUT: shown }).unitStatus('kubelet.service');
      expect(calls()).to.deep.equal([
        [
          '--no-ask-password',
          'show',
          '--property=LoadState,ActiveState,SubState,Type,Result,ExecMainCode,ExecMainStatus,InvocationID,ActiveEnterTimestampMonotonic,InactiveEnterTimestampMonotonic,InactiveExitTimestampMonotonic',
          '--',
          'kubelet.service',
        ],
      ]);
      expect(status).to.deep.equal({
        loadState: 'loaded',
        activeState: 'active',
        subState: 'running',
        type: 'notify',
        result: 'success',
        execMainCode: 0,
        execMainStatus: 0,
        invocationId: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
        activeEnterTimestampMonotonic: 8123456,
        inactiveEnterTimestampMonotonic: 0,
        inactiveExitTimestampMonotonic: 8000001,
      });
      const failed = await systemctl({ STUB_EXIT: '1', STUB_STDERR: 'Failed to connect to bus' })
        .unitStatus('kubelet.service')
        .catch((e) => e);
      expect((failed as Error).message).to.equal(
        'unable to read unit kubelet.service: exit code 1: Failed to connect to bus',
      );
    });

    it('a hanging daemon-reload is an error, not a wait forever', async () => {
      const error = await systemctl({ STUB_HANG: '1' })
        .daemonReload()
        .catch((e) => e);
      expect((error as Error).message).to.contain('no answer within 300 ms');
    });
  });
});
