/**
 * Kubernetes events (core/v1) for objects, with client-go's aggregation: the same event for the
 * same object within ten minutes bumps `count` and `lastTimestamp` (one merge patch, no read)
 * instead of creating another; an aggregated event that is gone is created again. Recording never
 * throws: an event that cannot be written is logged, never a reason to fail.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { formatRfc3339 } from '../api/index.js';
import { type Clock, realClock } from './clock.js';
import { isApiStatus } from './kube/api-status.js';
import { KubeClient } from './kube/kube-client.js';
import type { KubeHttp } from './kube/kube-http.js';
import { RESOURCE } from './kube/resource.js';
import { type Logger, silentLogger } from './logging.js';

export interface EventObject {
  readonly apiVersion?: string;
  readonly kind: string;
  readonly name: string;
  /** Empty for cluster-scoped objects; their events go to `default`. */
  readonly namespace?: string;
  readonly uid?: string;
}

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  readonly http: KubeHttp;
  readonly component: string;
  readonly host?: string;
  readonly clock?: Clock;
  readonly log?: Logger;
}

const AGGREGATION_WINDOW_MS = 10 * 60 * 1000;

interface Seen {
  name: string;
  namespace: string;
  count: number;
  last: number;
}

/** An Event as the API server takes it: timestamps are RFC 3339 strings on the wire. */
type EventBody = Omit<CoreV1Event, 'firstTimestamp' | 'lastTimestamp'> & {
  firstTimestamp?: string;
  lastTimestamp?: string;
};

/**
 * What records events about objects: core/v1 (EventRecorder) or events.k8s.io/v1
 * (EventsV1Recorder). `action` is what the reporter did or failed to do (events.k8s.io/v1's
 * `action`); core/v1 events have no such field and leave it out.
 */
export interface EventSink {
  event(
    object: EventObject,
    type: EventType,
    reason: string,
    message: string,
    action?: string,
  ): Promise<void>;
}

export class EventRecorder implements EventSink {
  private lastSweep = 0;

  private readonly seen = new Map<string, Seen>();
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly client: KubeClient;

  constructor(private readonly options: EventRecorderOptions) {
    this.clock = options.clock ?? realClock;
    this.log = options.log ?? silentLogger;
    this.client = new KubeClient(options.http);
  }

  /** Records the event; the returned promise settles when it was written (or failed). */
  async event(
    object: EventObject,
    type: EventType,
    reason: string,
    message: string,
    _action?: string,
  ): Promise<void> {
    await this.tryEvent(object, type, reason, message);
  }

  /**
   * Records the event: true once written, false when that failed (logged), for a caller that must
   * announce something at least once and tries again later.
   */
  async tryEvent(object: EventObject, type: EventType, reason: string, message: string): Promise<boolean> {
    const namespace = object.namespace || 'default';
    const key = [object.kind, namespace, object.name, object.uid, type, reason, message].join('\u0000');
    const now = this.clock.now();
    const timestamp = formatRfc3339(new Date(now));
    this.forgetOlderThan(now - AGGREGATION_WINDOW_MS);
    try {
      const seen = this.seen.get(key);
      if (seen && now - seen.last < AGGREGATION_WINDOW_MS) {
        seen.count++;
        seen.last = now;
        try {
          await this.client.mergePatch(
            RESOURCE.event,
            { name: seen.name, namespace },
            {
              count: seen.count,
              lastTimestamp: timestamp,
            },
          );
          return true;
        } catch (error) {
          if (!isApiStatus(error, 404)) throw error;
          this.seen.delete(key);
        }
      }
      const body: EventBody = {
        metadata: {
          name: `${object.name}.${now.toString(16)}${Math.floor(Math.random() * 0xfff).toString(16)}`,
          namespace,
        },
        involvedObject: {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: object.name,
          namespace: object.namespace,
          uid: object.uid,
        },
        type,
        reason,
        message,
        count: 1,
        firstTimestamp: timestamp,
        lastTimestamp: timestamp,
        source: { component: this.options.component, host: this.options.host },
        reportingComponent: this.options.component,
        reportingInstance: this.options.host ?? '',
      };
      const created = await this.client.create(RESOURCE.event, body);
      this.seen.set(key, { name: created.metadata?.name ?? '', namespace, count: 1, last: now });
      return true;
    } catch (error) {
      this.log.warn(
        { err: error, reason, object: `${object.kind}/${object.name}` },
        'Recording an event failed',
      );
      return false;
    }
  }

  /** How many events are remembered for aggregation (for tests and diagnostics). */
  get aggregating(): number {
    return this.seen.size;
  }

  /** Events last seen before `cutoff` are not aggregated any more: forget them (at most once a minute). */
  private forgetOlderThan(cutoff: number): void {
    if (cutoff - this.lastSweep < 60_000) return;
    this.lastSweep = cutoff;
    for (const [key, seen] of this.seen) if (seen.last < cutoff) this.seen.delete(key);
  }
}
