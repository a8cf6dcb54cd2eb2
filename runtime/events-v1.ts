/**
 * Kubernetes events through the events.k8s.io/v1 API, as client-go's events broadcaster records
 * them (k8s.io/client-go v0.36.4 tools/events/event_recorder.go, event_broadcaster.go), which
 * gardener v1.150.0's node agent uses (`mgr.GetEventRecorder(<controller>)`, controller-runtime
 * v0.24.1 pkg/internal/recorder/recorder.go):
 * - `reportingController` is the recorder's name, `reportingInstance` `<name>-<hostname>`;
 * - `eventTime` is the time of the event (MicroTime), `regarding` the object, `note` the message,
 *   `action` what was done; cluster-scoped objects' events go to `default`; the name is
 *   `<object>.<nanoseconds in hex>`;
 * - the same event again (same type, action, reason, reporter and object) within six minutes of
 *   the last one becomes a series: `series.count` and `series.lastObservedTime` patched on the
 *   first event, whose note stays; a series event that is gone is created again.
 * Unlike client-go, which patches a running series at most every 30 minutes, every repeat is
 * patched at once (one request, no timer), and a note longer than the API server takes is cut
 * to its limit instead of the event being lost. Recording never throws: an event that cannot be
 * written is logged.
 */
import { hostname } from 'node:os';
import { type Clock, realClock } from './clock.js';
import type { EventObject, EventSink, EventType } from './events.js';
import { isApiStatus } from './kube/api-status.js';
import { KubeClient } from './kube/kube-client.js';
import type { KubeHttp } from './kube/kube-http.js';
import { RESOURCE } from './kube/resource.js';
import { type Logger, silentLogger } from './logging.js';

export interface EventsV1RecorderOptions {
  readonly http: KubeHttp;
  /** `reportingController`: the controller's name, e.g. `operatingsystemconfig`. */
  readonly controller: string;
  /** The host in `reportingInstance` (default: this machine's hostname, as client-go's). */
  readonly host?: string;
  readonly clock?: Clock;
  readonly log?: Logger;
}

/** client-go's `finishTime`: a series (or a single event) ends six minutes after it was last seen. */
const SERIES_WINDOW_MS = 6 * 60 * 1000;

interface Series {
  name: string;
  namespace: string;
  count: number;
  last: number;
  /** Settles once the first event was written (or failed to be). */
  written: Promise<unknown>;
}

/** The API server refuses a longer note (k8s.io/kubernetes pkg/apis/core/validation/events.go, 1 kB). */
const NOTE_LIMIT = 1024;

/** metav1.MicroTime on the wire: RFC 3339 with six fractional digits (ours has milliseconds). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class EventsV1Recorder implements EventSink {
  private readonly seen = new Map<string, Series>();
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly client: KubeClient;
  private readonly instance: string;
  private sequence = 0;

  constructor(private readonly options: EventsV1RecorderOptions) {
    this.clock = options.clock ?? realClock;
    this.log = options.log ?? silentLogger;
    this.client = new KubeClient(options.http);
    this.instance = `${options.controller}-${options.host ?? hostname()}`;
  }

  async event(
    object: EventObject,
    type: EventType,
    reason: string,
    message: string,
    action = '',
  ): Promise<void> {
    const namespace = object.namespace || 'default';
    const key = [type, action, reason, object.kind, namespace, object.name, object.uid].join('\u0000');
    const now = this.clock.now();
    for (const [k, s] of this.seen) if (now - s.last >= SERIES_WINDOW_MS) this.seen.delete(k);
    const regarding = {
      apiVersion: object.apiVersion,
      kind: object.kind,
      name: object.name,
      namespace: object.namespace,
      uid: object.uid,
    };
    try {
      const known = this.seen.get(key);
      if (known) {
        known.count++;
        known.last = now;
        await known.written;
        const series = { count: known.count, lastObservedTime: microTime(now) };
        try {
          await this.client.mergePatch(RESOURCE.eventV1, { name: known.name, namespace }, { series });
          return;
        } catch (error) {
          if (!isApiStatus(error, 404)) throw error;
          this.seen.delete(key);
        }
      }
      // nanoseconds as client-go names events; a sequence keeps two in one millisecond apart
      const nanos = BigInt(now) * 1_000_000n + BigInt(this.sequence++ % 1_000_000);
      const name = `${object.name}.${nanos.toString(16)}`;
      // known before it is written, as client-go caches it: a repeat while it is on its way patches it
      const entry: Series = { name, namespace, count: 1, last: now, written: Promise.resolve() };
      this.seen.set(key, entry);
      const created = this.client.create(RESOURCE.eventV1, {
        apiVersion: RESOURCE.eventV1.apiVersion,
        kind: 'Event',
        metadata: { name, namespace },
        eventTime: microTime(now),
        reportingController: this.options.controller,
        reportingInstance: this.instance,
        action,
        reason,
        regarding,
        note: message.length > NOTE_LIMIT ? message.slice(0, NOTE_LIMIT) : message,
        type,
      });
      entry.written = created.catch(() => undefined);
      await created.catch((error: unknown) => {
        if (this.seen.get(key) === entry) this.seen.delete(key);
        throw error;
      });
    } catch (error) {
      this.log.warn(
        { err: error, reason, object: `${object.kind}/${object.name}` },
        'Recording an event failed',
      );
    }
  }
}
