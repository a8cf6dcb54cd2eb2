/** The token-requestor's own metrics, registered once per registry (next to the runtime's). */
import { Counter, type Registry } from 'prom-client';

export interface TokenRequestorMetrics {
  /** TokenRequests the shoot API server granted. */
  readonly tokensRequested: Counter;
  /** Reconciles of a seed secret that failed (each also records a Warning event on it). */
  readonly failures: Counter;
}

const byRegistry = new WeakMap<Registry, TokenRequestorMetrics>();

export function tokenRequestorMetrics(registry: Registry): TokenRequestorMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const metrics: TokenRequestorMetrics = {
    tokensRequested: new Counter({
      name: 'gardener_osc_token_requestor_tokens_requested_total',
      help: 'ServiceAccount tokens requested from shoot API servers by the direct-mode token-requestor',
      registers: [registry],
    }),
    failures: new Counter({
      name: 'gardener_osc_token_requestor_failures_total',
      help: 'Failed token-requestor reconciliations of seed access secrets',
      registers: [registry],
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
