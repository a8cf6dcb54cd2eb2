/**
 * The measurement the real-node tests rest on: every new invocation of a unit, attributed from the
 * node's journal to a job, the unit's own Restart= or its timer, on a bare node with units made for
 * each cause.
 */
import { join } from 'node:path';
import { expect } from 'chai';
import { envtestBinaries } from '../../hack/landscape/envtest.js';
import { sleep } from '../../hack/landscape/eventually.js';
import { realNodeCache } from '../../hack/real-node/cache.js';
import type { Container } from '../../hack/real-node/container.js';
import { RealNode } from '../../hack/real-node/real-node.js';
import {
  jobStartsPerUnit,
  journalCursor,
  parseUtcTimestamp,
  unitStartsSince,
} from '../../hack/real-node/systemd-state.js';

const UNITS: Record<string, string> = {
  'probe-job.service': '[Service]\nExecStart=/bin/sleep infinity\n',
  'probe-restart.service': '[Service]\nExecStart=/bin/true\nRestart=always\nRestartSec=1\n',
  'probe-timer.service': '[Service]\nType=oneshot\nExecStart=/bin/true\n',
  'probe-timer.timer': '[Timer]\nOnActiveSec=2s\nAccuracySec=1ms\n',
};

describe('unit invocations attributed to their causes from the journal', function () {
  this.timeout(60_000);
  let node: RealNode;
  let c: Container;

  before(async function () {
    this.timeout(20 * 60_000);
    node = new RealNode({
      name: `real-node-journal-${Date.now().toString(36)}`,
      cache: realNodeCache(),
      supervisor: join(envtestBinaries(), 'supervisor'),
    });
    c = await node.boot();
  });

  after(() => node?.stop());

  it('parses systemctl timestamps with microseconds', () => {
    expect(parseUtcTimestamp('Tue 2026-12-01 16:21:20.292676 UTC')).to.equal(1796142080292676);
    expect(parseUtcTimestamp('Tue 2026-12-01 16:21:20 UTC')).to.equal(1796142080000000);
    expect(parseUtcTimestamp('n/a')).to.equal(0);
  });

  it('a job, Restart= and a timer each start units; only the jobs count as jobs', async () => {
    const write = Object.entries(UNITS).map(
      ([name, content]) => `printf '%s' '${content}' >/etc/systemd/system/${name}`,
    );
    await c.run(['bash', '-c', [...write, 'systemctl daemon-reload'].join(' && ')]);
    const cursor = await journalCursor(c);
    await c.run(['systemctl', 'start', 'probe-restart.service', 'probe-timer.timer']);
    await c.run(['systemctl', 'restart', 'probe-job.service']);
    await sleep(7_000);
    await c.run(['systemctl', 'restart', 'probe-job.service']);
    const starts = await unitStartsSince(c, cursor);
    const causes = (unit: string) => [...new Set(starts.filter((s) => s.unit === unit).map((s) => s.cause))];
    // started once by the job above, then again and again by its Restart=always
    expect(causes('probe-restart.service')).to.deep.equal(['job', 'restart-policy']);
    expect(starts.filter((s) => s.unit === 'probe-restart.service').length).to.be.greaterThan(3);
    expect(causes('probe-job.service')).to.deep.equal(['job']);
    expect(causes('probe-timer.service')).to.deep.equal(['timer']);
    expect(Object.fromEntries(jobStartsPerUnit(starts))).to.deep.equal({
      'probe-job.service': 2,
      'probe-restart.service': 1,
      'probe-timer.timer': 1,
    });
  });

  it("a restart scheduled just before the cursor and started after it is still its Restart= policy's", async () => {
    // The cursor of a "Scheduled restart job" message, as a cursor taken between that message and
    // the "Starting" that follows it would be (a race a loaded node loses now and then). The unit
    // has restarted many times in the test before.
    const scheduled = (
      await c.run([
        'journalctl',
        '--no-pager',
        '-o',
        'json',
        '--output-fields=MESSAGE_ID',
        '_PID=1',
        'UNIT=probe-restart.service',
        'MESSAGE_ID=5eb03494b6584870a536b337290809b3',
      ])
    )
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { __CURSOR: string });
    const cursor = scheduled.at(-2)!.__CURSOR;
    const starts = await unitStartsSince(c, cursor);
    const first = starts.find((s) => s.unit === 'probe-restart.service');
    expect(first?.cause, 'the start that follows the scheduled restart').to.equal('restart-policy');
    expect(jobStartsPerUnit(starts).get('probe-restart.service')).to.equal(undefined);
  });
});
