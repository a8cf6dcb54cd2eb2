/**
 * Which watches of one API client are known not to deliver current events: a stream declared dead
 * by its heartbeat, or a list/watch that keeps failing to re-establish. `/readyz` includes the
 * `watches` check, so a process whose view of the API server is stale says so; the client's
 * watches register here by themselves (one registry per KubeHttp).
 */
import type { HealthCheck } from '../http-endpoints.js';
import type { KubeHttp } from './kube-http.js';

export interface StaleWatch {
  /** The collection path, with its selectors. */
  readonly resource: string;
  /** When the incident began (ms since the epoch). */
  readonly since: number;
  readonly reason: string;
}

export class WatchHealth {
  private readonly stale = new Map<number, StaleWatch>();
  private lastId = 0;

  /** A handle for one watch. */
  register(): number {
    return ++this.lastId;
  }

  markStale(id: number, watch: StaleWatch): void {
    this.stale.set(id, watch);
  }

  markFresh(id: number): void {
    this.stale.delete(id);
  }

  staleWatches(): StaleWatch[] {
    return [...this.stale.values()];
  }

  /** A readiness check that fails while any watch is stale, naming each. */
  readonly check: HealthCheck = {
    name: 'watches',
    check: () => {
      const stale = this.staleWatches();
      if (stale.length === 0) return;
      const now = Date.now();
      throw new Error(
        `stale: ${stale.map((w) => `${w.resource} for ${Math.round((now - w.since) / 1000)}s (${w.reason})`).join(', ')}`,
      );
    },
  };
}

const byClient = new WeakMap<KubeHttp, WatchHealth>();

export function watchHealthOf(http: KubeHttp): WatchHealth {
  let health = byClient.get(http);
  if (!health) {
    health = new WatchHealth();
    byClient.set(http, health);
  }
  return health;
}
