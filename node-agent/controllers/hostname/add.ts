/** Wires the hostname check: one key, looked at every interval (30 s by default). */
import { newController } from '../../../runtime/controller-builder.js';
import { type Logger, silentLogger } from '../../../runtime/logging.js';
import type { RuntimeMetrics } from '../../../runtime/metrics.js';
import type { RunningController } from '../../../runtime/running-controller.js';
import { type HostnameReconcilerOptions, hostnameReconciler } from './reconciler.js';

export const HOSTNAME_CHECK_CONTROLLER_NAME = 'hostname-check';
export const HOSTNAME_CHECK_INTERVAL_MS = 30_000;
const KEY = 'hostname';

export interface HostnameCheckOptions extends Omit<HostnameReconcilerOptions, 'intervalMs'> {
  readonly intervalMs?: number;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
}

export function addHostnameCheckController(o: HostnameCheckOptions, signal: AbortSignal): RunningController {
  const intervalMs = o.intervalMs ?? HOSTNAME_CHECK_INTERVAL_MS;
  return newController(HOSTNAME_CHECK_CONTROLLER_NAME, { log: o.log ?? silentLogger, metrics: o.metrics })
    .enqueueOnStart(KEY)
    .start(signal, hostnameReconciler({ ...o, intervalMs }));
}
