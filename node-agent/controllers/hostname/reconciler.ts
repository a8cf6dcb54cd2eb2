/**
 * The hostname check (upstream: gardener
 * pkg/nodeagent/controller/hostnamecheck/reconciler.go): a changed hostname changes which Node is
 * the agent's, so the agent starts over; otherwise it looks again after its interval.
 */
import type { Reconciler } from '../../../runtime/controller.js';

export interface HostnameReconcilerOptions {
  /** The hostname the agent started with (lower case). */
  readonly startupHost: string;
  /** The machine's hostname now. */
  readonly hostname: () => string;
  readonly intervalMs: number;
  readonly restartSelf: () => void;
}

export function hostnameReconciler(o: HostnameReconcilerOptions): Reconciler {
  return async (_key, ctx) => {
    const now = o.hostname().toLowerCase();
    if (now === o.startupHost) return { requeueAfterMs: o.intervalMs };
    ctx.log.info({ from: o.startupHost, to: now }, 'Hostname has changed, restarting gardener-node-agent');
    o.restartSelf();
    return undefined;
  };
}
