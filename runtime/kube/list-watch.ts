/**
 * List, then watch from the list's resourceVersion, forever. Unlike client-node's ListWatch it
 * tolerates quiet streams (no client-side inactivity abort below the server's own watch timeout),
 * asks for bookmarks so a reconnect resumes from a recent resourceVersion, relists only on 410
 * Gone, and retries every other error with capped exponential backoff: it never stops for good
 * until its signal aborts.
 */
import { Backoff } from '../backoff.js';
import { type Clock, realClock, sleep } from '../clock.js';
import { type Logger, silentLogger } from '../logging.js';
import type { RuntimeMetrics } from '../metrics.js';
import { type KubeHttp, KubeStatusError } from './kube-http.js';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; uid?: string };
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface ListWatchHandler<T extends KubeObject> {
  /** The complete current state, after the first list and after every relist. */
  onList(items: T[]): void;
  onEvent(type: WatchEventType, object: T): void;
}

export interface ListWatchOptions {
  readonly http: KubeHttp;
  /** Collection path, e.g. `/api/v1/namespaces/kube-system/secrets`. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Server-side watch timeout range in seconds; each watch picks a random value in it. */
  readonly watchTimeoutSeconds?: readonly [number, number];
  readonly pageSize?: number;
  readonly clock?: Clock;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
  readonly backoff?: { baseMs: number; maxMs: number };
  /** Resume watching from this resourceVersion instead of listing first (a 410 falls back to a list). */
  readonly resumeFromResourceVersion?: string;
}

class Expired extends Error {}

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
  private resourceVersion: string | undefined;
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
    this.log = (options.log ?? silentLogger).child({ watch: options.path });
    this.backoff = new Backoff({
      baseMs: options.backoff?.baseMs ?? 800,
      maxMs: options.backoff?.maxMs ?? 30_000,
      jitter: 0.2,
    });
    this.resourceVersion = options.resumeFromResourceVersion;
  }

  get latestResourceVersion(): string | undefined {
    return this.resourceVersion;
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
        const delay = this.backoff.next();
        this.state = 'backoff';
        this.restarted('error');
        this.log.warn({ err: error, retryInMs: Math.round(delay) }, 'List or watch failed, retrying');
        await sleep(this.clock, delay, signal).catch(() => undefined);
      }
    }
    this.state = 'stopped';
  }

  private restarted(reason: 'timeout' | 'expired' | 'error'): void {
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
    const response = await this.options.http.get({
      path: this.options.path,
      query: {
        ...this.selectors(),
        watch: 'true',
        allowWatchBookmarks: 'true',
        resourceVersion: this.resourceVersion,
        timeoutSeconds,
      },
      signal,
      // The server ends the stream after timeoutSeconds; only a connection silent well past that is dead.
      bodyTimeoutMs: (timeoutSeconds + 60) * 1000,
    });
    this.watchesOpened++;
    this.state = 'watching';
    let buffered = '';
    for await (const chunk of response.body) {
      buffered += (chunk as Buffer).toString('utf8');
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) {
          this.dispatch(JSON.parse(line) as WatchLine<T>);
          if (events++ === 0) this.backoff.reset();
        }
        newline = buffered.indexOf('\n');
      }
    }
    return events === 0 && this.clock.now() - started < 1000;
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
    if (event.type === 'BOOKMARK') return;
    this.handler.onEvent(event.type, event.object);
  }
}
