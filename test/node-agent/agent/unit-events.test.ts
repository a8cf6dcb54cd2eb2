import type { V1Node } from '@kubernetes/client-node';
import { expect } from 'chai';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { recordingUnitEvents } from '../../../node-agent/agent/unit-events.js';
import type { EventObject } from '../../../runtime/events.js';

interface Recorded {
  readonly object: EventObject;
  readonly type: string;
  readonly reason: string;
  readonly message: string;
}

describe('unit job events on the Node (upstream dbus layer)', () => {
  const node: V1Node = { metadata: { name: 'node-a', uid: 'uid-a' } };

  function setUp(failing: string | undefined, registered: V1Node | null = node) {
    const recorded: Recorded[] = [];
    const inner = new MemorySystemd((op) =>
      'unit' in op && op.unit === failing
        ? new Error(`${op.op} failed for ${op.unit}: exit code 1`)
        : undefined,
    );
    const systemd = recordingUnitEvents(
      inner,
      {
        event: async (object, type, reason, message) => void recorded.push({ object, type, reason, message }),
      },
      () => registered ?? undefined,
    );
    return { systemd, inner, recorded };
  }

  it('records a Normal event per successful start, stop and restart, none for reload, enable, disable', async () => {
    const { systemd, inner, recorded } = setUp(undefined);
    await systemd.daemonReload();
    await systemd.enable(['a.service']);
    await systemd.disable(['b.service']);
    await systemd.start('a.service');
    await systemd.stop('b.service');
    await systemd.restart('c.service');
    expect(inner.ops).to.have.length(6);
    expect(recorded.map((r) => [r.type, r.reason, r.message])).to.deep.equal([
      ['Normal', 'SystemDUnitStart', 'processed start of unit a.service'],
      ['Normal', 'SystemDUnitStop', 'processed stop of unit b.service'],
      ['Normal', 'SystemDUnitRestart', 'processed restart of unit c.service'],
    ]);
    expect(recorded[0]!.object).to.deep.equal({
      apiVersion: 'v1',
      kind: 'Node',
      name: 'node-a',
      uid: 'uid-a',
    });
  });

  it('records a Warning with the error when the job fails, and still fails the call', async () => {
    const { systemd, recorded } = setUp('broken.service');
    let error: Error | undefined;
    await systemd.restart('broken.service').catch((e: Error) => (error = e));
    expect(error?.message).to.equal('restart failed for broken.service: exit code 1');
    expect(recorded).to.deep.equal([
      {
        object: { apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: 'uid-a' },
        type: 'Warning',
        reason: 'SystemDUnitRestart',
        message:
          'processed restart of unit broken.service failed with error restart failed for broken.service: exit code 1',
      },
    ]);
  });

  it("reads a unit's status from systemd as it is, without an event", async () => {
    const { systemd, inner, recorded } = setUp(undefined);
    await systemd.restart('a.service');
    expect(await systemd.unitStatus('a.service')).to.deep.equal(await inner.unitStatus('a.service'));
    expect(recorded.map((r) => r.reason)).to.deep.equal(['SystemDUnitRestart']);
  });

  it("passes systemd's enablement through, which drift detection reads, without an event", async () => {
    const { systemd, inner, recorded } = setUp(undefined);
    await inner.enable(['a.service']);
    await inner.disable(['a.service']);
    expect(systemd.unitFileState).to.be.a('function');
    expect(await systemd.unitFileState!('a.service')).to.equal(await inner.unitFileState('a.service'));
    expect(await systemd.unitFileState!('a.service')).to.equal('disabled');
    expect(recorded).to.deep.equal([]);
  });

  it('records nothing before the Node is registered, but runs the job', async () => {
    const { systemd, inner, recorded } = setUp(undefined, null);
    await systemd.restart('a.service');
    expect(inner.ops).to.deep.equal([{ op: 'restart', unit: 'a.service' }]);
    expect(recorded).to.deep.equal([]);
  });
});
