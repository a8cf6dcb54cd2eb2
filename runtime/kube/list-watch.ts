/**
 * List, then watch from the list's resourceVersion, forever. Unlike client-node's ListWatch it
 * tolerates quiet streams, asks for bookmarks so a reconnect resumes from a recent resourceVersion,
 * relists only on 410 Gone, and retries every other error with capped exponential backoff: it
 * never stops for good until its signal aborts.
 *
 * Bookmarks are also its heartbeat: the API server sends one about every minute on an idle watch,
 * so a stream that delivers nothing (no event, no bookmark) for `heartbeatTimeoutMs` sits on a
 * connection that died without a reset (a lost NAT or load-balancer entry). It is then dropped
 * and re-opened at once. HTTP/1.1 has no pings, and without this the dead stream would only end
 * at the body timeout, minutes later. While a watch is known to be stale (declared dead, or
 * failing to re-open) it is reported to its client's WatchHealth (`/readyz`), and one warning is
 * logged per incident, not one per retry.
 */

import type { KubeObject } from '../../api/index.js';
import { Backoff } from '../backoff.js';
import { type Clock, realClock, sleep, type TimerHandle } from '../clock.js';
import { type Logger, silentLogger } from '../logging.js';
import type { RuntimeMetrics } from '../metrics.js';
import { LineSplitter } from './json-lines.js';
import { type KubeHttp, KubeStatusError } from './kube-http.js';
import { type WatchHealth, watchHealthOf } from './watch-health.js';

export type { KubeObject } from '../../api/index.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface ListWatchHandler<T extends KubeObject> {
  /** The complete current state, after the first list and after every relist. */
  onList(items: T[]): void;
  onEvent(type: WatchEventType, object: T): void;
}

/** The API server's idle watches get a bookmark about every 60 s; 15 s more is the margin. */
export const DEFAULT_WATCH_HEARTBEAT_TIMEOUT_MS = 75_000;
/**
 * Overrides the heartbeat timeout of every watch in the process (seconds, decimals allowed), as
 * client-go's HTTP2_READ_IDLE_TIMEOUT_SECONDS does for its pings: tests and unusual networks.
 */
export const WATCH_HEARTBEAT_TIMEOUT_ENV = 'GARDENER_OSC_WATCH_HEARTBEAT_TIMEOUT_SECONDS';

export function heartbeatTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[WATCH_HEARTBEAT_TIMEOUT_ENV];
  const seconds = text === undefined || text === '' ? Number.NaN : Number(text);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_WATCH_HEARTBEAT_TIMEOUT_MS;
}

export interface ListWatchOptions {
  readonly http: KubeHttp;
  /** Collection path, e.g. `/api/v1/namespaces/kube-system/secrets`. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Server-side watch timeout range in seconds; each watch picks a random value in it. */
  readonly watchTimeoutSeconds?: readonly [number, number];
  /** A stream silent this long is dead (default: the environment override, else 75 s). */
  readonly heartbeatTimeoutMs?: number;
  readonly pageSize?: number;
  readonly clock?: Clock;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
  readonly backoff?: { baseMs: number; maxMs: number };
  /** Resume watching from this resourceVersion instead of listing first (a 410 falls back to a list). */
  readonly resumeFromResourceVersion?: string;
  /** Where staleness is reported; default: the registry of `http`. */
  readonly health?: WatchHealth;
}

class Expired extends Error {}

/** Nothing arrived for the heartbeat timeout: before the response (`established` false) or after. */
class WatchSilent extends Error {
  constructor(
    readonly ms: number,
    readonly established: boolean,
  ) {
    super(
      established
        ? `no event or bookmark for ${ms / 1000}s`
        : `no response to the watch request within ${ms / 1000}s`,
    );
  }
}

interface ListResponse<T> {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: T[];
}

interface WatchLine<T> {
  type: WatchEventType | 'BOOKMARK' | 'ERROR';
  object: T & { code?: number; reason?: string; message?: string };
}

export type WatchState = 'listing' | 'watching' | 'backoff' | 'stopped';

export class ListWatch<T extends KubeObject> {
  private readonly options: ListWatchOptions;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly backoff: Backoff;
  private readonly heartbeatMs: number;
  private readonly health: WatchHealth;
  private readonly healthId: number;
  private readonly resource: string;
  private resourceVersion: string | undefined;
  /** The server sends bookmarks, so silence means a dead connection, not a quiet one. */
  private bookmarksSeen = false;
  private incident: { since: number } | undefined;
  /** How many watch requests were opened (a quiet stream must not need new ones). */
  watchesOpened = 0;
  lists = 0;
  state: WatchState = 'stopped';

  constructor(
    options: ListWatchOptions,
    private readonly handler: ListWatchHandler<T>,
  ) {
    this.options = options;
    this.clock = options.clock ?? realClock;
    this.resource = [options.path, options.labelSelector, options.fieldSelector].filter(Boolean).join(' ');
    this.log = (options.log ?? silentLogger).child({ watch: this.resource });
    this.backoff = new Backoff({
      baseMs: options.backoff?.baseMs ?? 800,
      maxMs: options.backoff?.maxMs ?? 30_000,
      jitter: 0.2,
    });
    this.heartbeatMs = options.heartbeatTimeoutMs ?? heartbeatTimeoutMs();
    this.health = options.health ?? watchHealthOf(options.http);
    this.healthId = this.health.register();
    this.resourceVersion = options.resumeFromResourceVersion;
  }

  get latestResourceVersion(): string | undefined {
    return this.resourceVersion;
  }

  /** Known not to deliver current events (declared dead, or failing to re-open) since then. */
  get staleSince(): number | undefined {
    return this.incident?.since;
  }

  /** Runs until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        if (this.resourceVersion === undefined) await this.list(signal);
        const quick = await this.watch(signal);
        this.restarted('timeout');
        // A server that keeps closing watches at once must not be hammered: back off then too.
        if (quick) await sleep(this.clock, this.backoff.next(), signal).catch(() => undefined);
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof Expired || (error instanceof KubeStatusError && error.status === 410)) {
          this.log.debug('Watch resourceVersion expired, relisting');
          this.resourceVersion = undefined;
          this.restarted('expired');
          continue;
        }
        if (error instanceof WatchSilent && error.established) {
          this.restarted('stale');
          // Without bookmarks a quiet stream looks the same as a dead one: re-open it without
          // alarm; if the connection is really dead, the re-open fails and that is the incident.
          if (this.bookmarksSeen) this.beginIncident(error.message);
          else this.log.debug({ silentForMs: error.ms }, 'Quiet watch without bookmarks, re-opening it');
          continue;
        }
        const delay = this.backoff.next();
        this.state = 'backoff';
        this.restarted('error');
        this.beginIncident(`list or watch failed: ${(error as Error).message}`, error, delay);
        await sleep(this.clock, delay, signal).catch(() => undefined);
      }
    }
    this.health.markFresh(this.healthId);
    this.state = 'stopped';
  }

  /** The first failure of an incident is a warning; the retries that follow are debug. */
  private beginIncident(reason: string, error?: unknown, retryInMs?: number): void {
    const retry = retryInMs === undefined ? {} : { retryInMs: Math.round(retryInMs) };
    if (this.incident) {
      this.log.debug({ err: error, ...retry }, 'Watch still stale, retrying');
      return;
    }
    const since = this.clock.now();
    this.incident = { since };
    this.health.markStale(this.healthId, { resource: this.resource, since, reason });
    this.log.warn({ err: error, ...retry }, `Watch is stale (${reason}), re-establishing it`);
  }

  private endIncident(): void {
    if (!this.incident) return;
    this.log.info({ staleForMs: this.clock.now() - this.incident.since }, 'Watch re-established');
    this.incident = undefined;
    this.health.markFresh(this.healthId);
  }

  private restarted(reason: 'timeout' | 'expired' | 'error' | 'stale'): void {
    this.options.metrics?.watchRestarts.inc({ resource: this.options.path, reason });
  }

  private selectors(): Record<string, string | undefined> {
    return { labelSelector: this.options.labelSelector, fieldSelector: this.options.fieldSelector };
  }

  private async list(signal: AbortSignal): Promise<void> {
    this.state = 'listing';
    const items: T[] = [];
    let next: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const page = await this.options.http.getJson<ListResponse<T>>({
        path: this.options.path,
        query: { ...this.selectors(), limit: this.options.pageSize ?? 500, continue: next },
        signal,
      });
      items.push(...(page.items ?? []));
      next = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion;
    } while (next);
    this.lists++;
    this.backoff.reset();
    this.resourceVersion = resourceVersion;
    this.handler.onList(items);
  }

  private watchTimeoutSeconds(): number {
    const [min, max] = this.options.watchTimeoutSeconds ?? [300, 600];
    return Math.round(min + Math.random() * (max - min));
  }

  /** Returns true when the stream ended at once without any event (a misbehaving server). */
  private async watch(signal: AbortSignal): Promise<boolean> {
    const started = this.clock.now();
    let events = 0;
    const timeoutSeconds = this.watchTimeoutSeconds();
    const request = new AbortController();
    const onAbort = () => request.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    // Aborted between the list and here (the last holder released the informer as it synced):
    // the listener above never fires for an abort that already happened.
    if (signal.aborted) onAbort();
    let established = false;
    let silence: TimerHandle | undefined;
    // Re-armed by every byte that arrives; fires only on a stream (or a request) gone silent.
    const heartbeat = () => {
      silence?.cancel();
      silence = this.clock.setTimer(
        () => request.abort(new WatchSilent(this.heartbeatMs, established)),
        this.heartbeatMs,
      );
    };
    try {
      heartbeat();
      const response = await this.options.http.get({
        path: this.options.path,
        query: {
          ...this.selectors(),
          watch: 'true',
          allowWatchBookmarks: 'true',
          resourceVersion: this.resourceVersion,
          timeoutSeconds,
        },
        signal: request.signal,
        // The server ends the stream after timeoutSeconds; the heartbeat notices a dead one sooner.
        bodyTimeoutMs: (timeoutSeconds + 60) * 1000,
      });
      established = true;
      this.watchesOpened++;
      this.state = 'watching';
      this.endIncident();
      heartbeat();
      const lines = new LineSplitter();
      for await (const chunk of response.body) {
        heartbeat();
        for (const line of lines.push(chunk as Buffer)) {
          if (this.dispatchLine(line) && events++ === 0) this.backoff.reset();
        }
      }
      const rest = lines.end();
      if (rest !== undefined && this.dispatchLine(rest)) events++;
      return events === 0 && this.clock.now() - started < 1000;
    } catch (error) {
      const reason: unknown = request.signal.reason;
      if (!signal.aborted && reason instanceof WatchSilent) throw reason;
      throw error;
    } finally {
      silence?.cancel();
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Handles one line of the stream; false for a blank one. */
  private dispatchLine(text: string): boolean {
    const line = text.trim();
    if (!line) return false;
    this.dispatch(JSON.parse(line) as WatchLine<T>);
    return true;
  }

  private dispatch(event: WatchLine<T>): void {
    if (event.type === 'ERROR') {
      if (event.object.code === 410) throw new Expired(event.object.message ?? 'resourceVersion expired');
      throw new KubeStatusError(
        event.object.code ?? 500,
        event.object.reason ?? '',
        event.object.message ?? 'watch error',
      );
    }
    const rv = event.object.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (event.type === 'BOOKMARK') {
      this.bookmarksSeen = true;
      return;
    }
    this.handler.onEvent(event.type, event.object);
  }
}
