/**
 * `gardener-node-agent run`: the long-running agent (gardener v1.91.4 `cmd/gardener-node-agent/app/app.go`). Loads and validates its
 * config, builds its credentials, finds its Node by hostname, serves /healthz, /readyz and
 * /metrics, and runs the operatingsystemconfig, token, node, lease, health-check and
 * hostname-check controllers until its signal aborts or it must restart itself (its unit or binary
 * changed, or the hostname did).
 */
import { setMaxListeners } from 'node:events';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { pingCheck, type RunningServer, serveEndpoints } from '../../runtime/http-endpoints.js';
import { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { watchHealthOf } from '../../runtime/kube/watch-health.js';
import { runtimeMetrics } from '../../runtime/metrics.js';
import { cleanCloudConfigDownloader } from '../bootstrap/cloud-config-downloader-cleaner.js';
import { writeKubeletBootstrapKubeconfig } from '../bootstrap/kubelet-bootstrap-kubeconfig.js';
import { ownNode } from '../controllers/agent-informers.js';
import { agentMetrics, countingRestarts } from '../controllers/agent-metrics.js';
import { driftCheckInterval } from '../controllers/drift/drift-interval.js';
import { CONTROLLER_NAME as OSC_CONTROLLER_NAME } from '../controllers/operatingsystemconfig/add.js';
import { identityNodeName } from '../identity/identity-name.js';
import { addAgentControllers } from './add-controllers.js';
import type { AgentOptions } from './agent-options.js';
import { nodeEventSink } from './event-sinks.js';
import { healthProbes } from './health-probes.js';
import { agentCredentials, hostName, nodeNameByHostName, usesNodeIdentity } from './rest-config.js';
import { recordingUnitEvents } from './unit-events.js';

export type { AgentOptions } from './agent-options.js';

export interface RunningAgent {
  readonly health: RunningServer;
  readonly metrics: RunningServer;
  /** Resolves with why the agent stopped: asked to, or it must be restarted by systemd. */
  readonly stopped: Promise<'stopped' | 'restart'>;
  stop(): void;
}

export async function runAgent(o: AgentOptions): Promise<RunningAgent> {
  const { config, log } = o;
  // the kubelet needs credentials to register before the agent can find its Node (gardener v1.91.4 `cmd/gardener-node-agent/app/app.go`)
  await writeKubeletBootstrapKubeconfig({ root: o.root, config, logger: log });
  const env = o.env ?? process.env;
  const host = hostName(o.nodeName);
  // with a per-node identity the agent's name is its Node's (the identity names it); it may only
  // read that Node, so it never looks Nodes up by hostname
  const nodeIdentity = usesNodeIdentity(config, env, o.contract)
    ? await identityNodeName({ root: o.root, nodeName: o.nodeName, hostName: host })
    : undefined;
  const kubeConfig = await agentCredentials({
    config,
    root: o.root,
    env,
    identityNodeName: async () => nodeIdentity ?? host,
    ...(o.contract ? { contract: o.contract } : {}),
    log,
  });
  // one kept-alive connection pool for every watch, read and write of the agent
  const http = new KubeHttp(kubeConfig);
  const client = new KubeClient(http);
  const nodeName = o.nodeName ?? nodeIdentity ?? (await nodeNameByHostName(client, host));
  const root = new AbortController();
  // every informer, controller worker and timer of the agent listens on this one signal
  setMaxListeners(100, root.signal);
  let reason: 'stopped' | 'restart' = 'stopped';
  const restartSelf = () => {
    reason = 'restart';
    root.abort(new Error('the node agent restarts itself'));
  };

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = runtimeMetrics(registry);
  const ownMetrics = agentMetrics(registry);
  const cache = new ClusterCache({ name: 'node-agent', http, log, metrics });
  const nodes = ownNode(cache, nodeName, host);
  // the OSC controller's events, and every unit job the agent runs (upstream records those with the
  // recorder of the controller that asked: ours are the OSC controller's)
  const recorder = nodeEventSink({
    contract: o.contract,
    http,
    component: 'gardener-node-agent',
    controller: OSC_CONTROLLER_NAME,
    nodeOrHost: nodeName ?? host,
    hostName: host,
    log,
  });
  // every unit job the agent runs is counted and recorded on its Node, as upstream's dbus layer does
  const systemd = recordingUnitEvents(
    countingRestarts(o.systemd, ownMetrics),
    recorder,
    () => nodes.list()[0],
  );
  const probes = healthProbes(o);
  const agent = { options: o, http, client, cache, nodeName, hostName: host, nodeIdentity, nodes, systemd };
  const controllers = addAgentControllers(
    { ...agent, recorder, log, metrics, agentMetrics: ownMetrics, restartSelf, signal: root.signal },
    probes,
  );
  cache.start(root.signal);

  // Once the agent has its own token the legacy downloader must go (gardener v1.91.4 `cmd/gardener-node-agent/app/bootstrappers/`).
  await cleanCloudConfigDownloader({ root: o.root, systemd, logger: log });

  let synced = false;
  void Promise.all(controllers.map((c) => c.synced())).then(
    () => (synced = true),
    () => undefined,
  );
  const informerSync = {
    name: 'informer-sync',
    check: () => {
      if (!synced) throw new Error('caches not synced');
    },
  };
  const health = await serveEndpoints({
    host: config.server.healthProbes?.bindAddress,
    port: o.healthPort ?? config.server.healthProbes?.port ?? 2751,
    healthz: [pingCheck],
    // unready while a watch is known stale: the agent would not see a new OSC
    readyz: [informerSync, watchHealthOf(http).check],
  });
  const metricsServer = await serveEndpoints({
    host: config.server.metrics?.bindAddress,
    port: o.metricsPort ?? config.server.metrics?.port ?? 2752,
    registry,
  });
  log.info(
    {
      nodeName,
      hostName: host,
      health: health.url,
      metrics: metricsServer.url,
      kubeletHealthz: probes.kubeletHealthzUrl ?? 'off',
      containerdHealthCheck: probes.containerdCheck ? 'on' : 'off',
      driftCheckIntervalMs: driftCheckInterval(o) ?? 'off',
    },
    'Started gardener-node-agent',
  );

  const stopped = new Promise<'stopped' | 'restart'>((resolve) => {
    root.signal.addEventListener(
      'abort',
      () => {
        void Promise.all([
          ...controllers.map((c) => c.stopped()),
          health.close(),
          metricsServer.close(),
          http.close(),
        ]).then(() => resolve(reason));
      },
      { once: true },
    );
  });
  return { health, metrics: metricsServer, stopped, stop: () => root.abort(new Error('stopped')) };
}
