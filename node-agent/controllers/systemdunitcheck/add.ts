/**
 * The systemd-unit-check controller of a v1.150.0 node (gardener v1.150.0
 * pkg/nodeagent/controller/systemdunitcheck/): every `syncPeriod` (and when its Node appears) it
 * reads the units of `last-applied-osc.yaml`, asks systemd how each is doing and writes the Node
 * condition `SystemdUnitsReady`, which gardenlet's care checks read. Before the first apply (no
 * such file) or before the Node is registered it writes nothing. The condition goes through a
 * server-side apply of that one condition under its own field manager, so the kubelet's
 * conditions are never overwritten (upstream merge-patches the whole list).
 */
import type { V1Node } from '@kubernetes/client-node';
import { newController, type WatchSource } from '../../../runtime/controller-builder.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../../runtime/kube/resource.js';
import { type Logger, silentLogger } from '../../../runtime/logging.js';
import type { RuntimeMetrics } from '../../../runtime/metrics.js';
import type { RunningController } from '../../../runtime/running-controller.js';
import { HostRoot } from '../../applier/host-root.js';
import { decodeLastApplied, readLastAppliedText } from '../../applier/last-applied.js';
import type { Systemd } from '../../systemd/systemd.js';
import { managedUnits } from './managed-units.js';
import { SYSTEMD_UNITS_READY, systemdUnitsReadyCondition } from './systemd-units-ready-condition.js';
import { unitVerdicts } from './unit-verdicts.js';

export const SYSTEMD_UNIT_CHECK_CONTROLLER_NAME = 'systemd-unit-check';
export const SYSTEMD_UNIT_CHECK_FIELD_MANAGER = 'gardener-node-agent-systemd-unit-check';
const KEY = 'systemd-unit-check';

export interface SystemdUnitCheckOptions {
  readonly root: string;
  readonly systemd: Pick<Systemd, 'unitStatus' | 'unitActivity'>;
  readonly client: Pick<KubeClient, 'apply'>;
  readonly node: () => V1Node | undefined;
  /** The agent's Node informer: the first check runs as soon as the Node exists. */
  readonly nodes?: WatchSource<V1Node>;
  /** `controllers.systemdUnitCheck.syncPeriod`, nanoseconds. */
  readonly syncPeriod: number;
  /** `controllers.systemdUnitCheck.stuckThreshold`, nanoseconds. */
  readonly stuckThreshold: number;
  readonly now?: () => Date;
  /** CLOCK_MONOTONIC in microseconds (tests). */
  readonly monotonicNow?: () => number;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
}

/** One check: true when a condition was written. */
export async function checkSystemdUnits(o: SystemdUnitCheckOptions): Promise<boolean> {
  const node = o.node();
  const name = node?.metadata?.name;
  if (!name) return false;
  const text = await readLastAppliedText(new HostRoot(o.root));
  if (text === undefined) return false;
  const decoded = decodeLastApplied(text);
  if ('problem' in decoded) throw new Error(`unable to decode last-applied OSC: ${decoded.problem}`);
  const verdicts = await unitVerdicts(managedUnits(decoded.osc), o);
  const previous = node.status?.conditions?.find((c) => c.type === SYSTEMD_UNITS_READY);
  const condition = systemdUnitsReadyCondition(verdicts, (o.now ?? (() => new Date()))(), previous);
  await o.client.apply(
    RESOURCE.node,
    { apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { conditions: [condition] } },
    { subresource: 'status', fieldManager: SYSTEMD_UNIT_CHECK_FIELD_MANAGER, force: true },
  );
  return true;
}

export function addSystemdUnitCheckController(
  o: SystemdUnitCheckOptions,
  signal: AbortSignal,
): RunningController {
  const periodMs = o.syncPeriod / 1e6;
  const builder = newController(SYSTEMD_UNIT_CHECK_CONTROLLER_NAME, {
    log: o.log ?? silentLogger,
    metrics: o.metrics,
    timeoutMs: periodMs,
  }).enqueueOnStart(KEY);
  if (o.nodes) builder.watches(o.nodes, () => KEY, { create: true }, { waitForSync: false });
  return builder.start(signal, async () => {
    await checkSystemdUnits(o);
    return { requeueAfterMs: periodMs };
  });
}
