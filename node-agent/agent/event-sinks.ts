/**
 * Which events API the agent records through, by the contract of its configuration: a v1.91.4
 * node records core/v1 events as gardener v1.91.4's agent does (one source component per
 * recorder), a v1.150.0 node events.k8s.io/v1 events as gardener v1.150.0's does
 * (`mgr.GetEventRecorder(ControllerName)` in pkg/nodeagent/controller/<name>/add.go: the reporting
 * controller is the controller's name, the instance `<name>-<hostname>`).
 */
import type { GardenerVersion } from '../../api/index.js';
import { EventRecorder, type EventSink } from '../../runtime/events.js';
import { EventsV1Recorder } from '../../runtime/events-v1.js';
import type { KubeHttp } from '../../runtime/kube/kube-http.js';
import type { Logger } from '../../runtime/logging.js';

export interface EventSinkOptions {
  readonly contract: GardenerVersion | undefined;
  readonly http: KubeHttp;
  /** core/v1: the source component. */
  readonly component: string;
  /** events.k8s.io/v1: the reporting controller (upstream's controller name). */
  readonly controller: string;
  /** core/v1: the source host (the Node's name); */
  readonly nodeOrHost: string;
  /** events.k8s.io/v1: the hostname in the reporting instance. */
  readonly hostName: string;
  readonly log?: Logger;
}

export function nodeEventSink(o: EventSinkOptions): EventSink {
  if (o.contract === 'v1.150.0')
    return new EventsV1Recorder({ http: o.http, controller: o.controller, host: o.hostName, log: o.log });
  return new EventRecorder({ http: o.http, component: o.component, host: o.nodeOrHost, log: o.log });
}
