/**
 * Kubernetes events (core/v1) for objects, with client-go's aggregation: the same event for the
 * same object within ten minutes bumps `count` and `lastTimestamp` instead of creating another.
 * Recording never throws: an event that cannot be written is logged, never a reason to fail.
 */
import { ApiException, type CoreV1Api, type CoreV1Event } from '@kubernetes/client-node';
import { type Clock, realClock } from './clock.js';
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
  readonly api: CoreV1Api;
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

export class EventRecorder {
  private readonly seen = new Map<string, Seen>();
  private readonly clock: Clock;
  private readonly log: Logger;

  constructor(private readonly options: EventRecorderOptions) {
    this.clock = options.clock ?? realClock;
    this.log = options.log ?? silentLogger;
  }

  /** Records the event; the returned promise settles when it was written (or failed). */
  async event(object: EventObject, type: EventType, reason: string, message: string): Promise<void> {
    const namespace = object.namespace || 'default';
    const key = [object.kind, namespace, object.name, object.uid, type, reason, message].join('\u0000');
    const now = this.clock.now();
    const seen = this.seen.get(key);
    try {
      if (seen && now - seen.last < AGGREGATION_WINDOW_MS) {
        seen.count++;
        seen.last = now;
        await this.options.api.replaceNamespacedEvent({
          name: seen.name,
          namespace,
          body: {
            ...(await this.options.api.readNamespacedEvent({ name: seen.name, namespace })),
            count: seen.count,
            lastTimestamp: new Date(now),
          },
        });
        return;
      }
      const body: CoreV1Event = {
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
        firstTimestamp: new Date(now),
        lastTimestamp: new Date(now),
        source: { component: this.options.component, host: this.options.host },
        reportingComponent: this.options.component,
        reportingInstance: this.options.host ?? '',
      };
      const created = await this.options.api.createNamespacedEvent({ namespace, body });
      this.seen.set(key, { name: created.metadata?.name ?? '', namespace, count: 1, last: now });
    } catch (error) {
      if (seen && error instanceof ApiException && error.code === 404) this.seen.delete(key);
      this.log.warn(
        { err: error, reason, object: `${object.kind}/${object.name}` },
        'Recording an event failed',
      );
    }
  }
}
