/**
 * The events upstream's systemd layer records on the Node for every unit job (gardener v1.91.4
 * pkg/nodeagent/dbus/dbus.go): a start, stop or restart is
 * `SystemDUnitStart`/`SystemDUnitStop`/`SystemDUnitRestart`, Normal with `processed <op> of unit
 * <name>`, or Warning with `processed <op> of unit <name> failed with error <error>` when systemd
 * reports the job failed. So a unit that fails to start is visible on its Node, not only in the
 * agent's log. Before the Node is registered there is nothing to attach them to (upstream passes no
 * node then): the call goes through without an event.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { EventSink } from '../../runtime/events.js';
import { type Systemd, systemdQueries } from '../systemd/systemd.js';

type JobOp = 'start' | 'stop' | 'restart' | 'reload';

const REASON: Record<JobOp, string> = {
  start: 'SystemDUnitStart',
  stop: 'SystemDUnitStop',
  restart: 'SystemDUnitRestart',
  // ours: upstream never reloads a unit (docs/least-disruption.md)
  reload: 'SystemDUnitReload',
};

export function recordingUnitEvents(
  systemd: Systemd,
  events: EventSink,
  node: () => V1Node | undefined,
): Systemd {
  const job = async (op: JobOp, unit: string): Promise<void> => {
    const current = node();
    const record = (type: 'Normal' | 'Warning', message: string) => {
      if (!current?.metadata?.name) return;
      const object = {
        apiVersion: 'v1',
        kind: 'Node',
        name: current.metadata.name,
        uid: current.metadata.uid,
      };
      void events.event(object, type, REASON[op], message, op);
    };
    try {
      await systemd[op](unit);
    } catch (e) {
      record('Warning', `processed ${op} of unit ${unit} failed with error ${(e as Error).message}`);
      throw e;
    }
    record('Normal', `processed ${op} of unit ${unit}`);
  };
  return {
    ...systemdQueries(systemd),
    daemonReload: () => systemd.daemonReload(),
    enable: (units) => systemd.enable(units),
    disable: (units) => systemd.disable(units),
    start: (unit) => job('start', unit),
    stop: (unit) => job('stop', unit),
    restart: (unit) => job('restart', unit),
    reload: (unit) => job('reload', unit),
  };
}
