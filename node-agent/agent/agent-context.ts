/**
 * What every controller of the agent is given: one API connection pool and client, one informer
 * cache (a kind is watched once however many controllers read it, as on the seed), its own Node's
 * informer, the systemd it drives, its events and metrics, and the one signal they all stop on.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { EventSink } from '../../runtime/events.js';
import type { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import type { Informer } from '../../runtime/kube/informer.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import type { KubeHttp } from '../../runtime/kube/kube-http.js';
import type { Logger } from '../../runtime/logging.js';
import type { RuntimeMetrics } from '../../runtime/metrics.js';
import type { AgentMetrics } from '../controllers/agent-metrics.js';
import type { Systemd } from '../systemd/systemd.js';
import type { AgentOptions } from './agent-options.js';

export interface AgentContext {
  readonly options: AgentOptions;
  readonly http: KubeHttp;
  readonly client: KubeClient;
  readonly cache: ClusterCache;
  /** Known when the Node was found at start-up (or named by the identity). */
  readonly nodeName: string | undefined;
  readonly hostName: string;
  /** The Node name of the per-node identity, when the agent has one. */
  readonly nodeIdentity: string | undefined;
  /** The agent's own Node, shared by its controllers. */
  readonly nodes: Informer<V1Node>;
  /** Counts and records every unit job the agent runs. */
  readonly systemd: Systemd;
  readonly recorder: EventSink;
  readonly log: Logger;
  readonly metrics: RuntimeMetrics;
  readonly agentMetrics: AgentMetrics;
  /** Stops the agent so that systemd starts it again. */
  readonly restartSelf: () => void;
  readonly signal: AbortSignal;
}
