/**
 * `gardener-node-agent run`: the long-running agent (node-side §5). Loads and validates its
 * config, builds its credentials, finds its Node by hostname, serves /healthz, /readyz and
 * /metrics, and runs the operatingsystemconfig, token, node, lease, health-check and
 * hostname-check controllers until its signal aborts or it must restart itself (its unit or binary
 * changed, or the hostname did).
 */
import { setMaxListeners } from 'node:events';
import { hostname as osHostname } from 'node:os';
import { resolve } from 'node:path';
import type { V1Node } from '@kubernetes/client-node';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { formatSemVer, type NodeAgentConfiguration, PATH } from '../../api/index.js';
import { Controller } from '../../runtime/controller.js';
import { EventRecorder } from '../../runtime/events.js';
import { pingCheck, type RunningServer, serveEndpoints } from '../../runtime/http-endpoints.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { watchHealthOf } from '../../runtime/kube/watch-health.js';
import type { Logger } from '../../runtime/logging.js';
import { runtimeMetrics } from '../../runtime/metrics.js';
import { applyBarrierFromEnv } from '../applier/apply-barrier.js';
import { HostRoot } from '../applier/host-root.js';
import { cleanCloudConfigDownloader } from '../bootstrap/cloud-config-downloader-cleaner.js';
import { writeKubeletBootstrapKubeconfig } from '../bootstrap/kubelet-bootstrap-kubeconfig.js';
import { agentMetrics, countingRestarts } from '../controllers/agent-metrics.js';
import { startCertificateController } from '../controllers/certificate/add.js';
import {
  HEALTH_CHECK_CONTROLLER_NAME,
  HEALTH_CHECK_KEY,
  startHealthCheckController,
} from '../controllers/healthcheck/add.js';
import type { ContainerdCheck } from '../controllers/healthcheck/containerd-health.js';
import { ctrVersionCheck } from '../controllers/healthcheck/ctr-version-check.js';
import { KUBELET_HEALTHZ_URL, kubeletHealthzProbe } from '../controllers/healthcheck/kubelet-healthz.js';
import { startLeaseController } from '../controllers/lease/add.js';
import { restartAnnotationChanged, restartRequestedServices } from '../controllers/node/restart-services.js';
import { startOscController } from '../controllers/operatingsystemconfig/add.js';
import { startTokenController } from '../controllers/token/add.js';
import { identityNodeName } from '../identity/identity-name.js';
import type { ImageExtractor } from '../registry/image-extractor.js';
import type { Systemd } from '../systemd/systemd.js';
import { agentCredentials, hostName, nodeNameByHostName, usesNodeIdentity } from './rest-config.js';
import { recordingUnitEvents } from './unit-events.js';

export interface AgentOptions {
  readonly config: NodeAgentConfiguration;
  readonly root: string;
  readonly systemd: Systemd;
  readonly images: ImageExtractor;
  readonly log: Logger;
  readonly env?: NodeJS.ProcessEnv;
  /** Overrides the hostname lookup (many agents on one machine). */
  readonly nodeName?: string;
  readonly healthPort?: number;
  readonly metricsPort?: number;
  readonly hostnameCheckIntervalMs?: number;
  /**
   * The kubelet endpoint the health check probes; `false`: no kubelet check. Default: the
   * kubelet's /healthz when the root is `/`, else none (a tree in a temp dir has no kubelet).
   */
  readonly kubeletHealthzUrl?: string | false;
  /** How the health check asks containerd; `false`: not at all. Default: `ctr version` when the root is `/`. */
  readonly containerdCheck?: ContainerdCheck | false;
  readonly healthCheckIntervalMs?: number;
  /** How long after an apply its restarted units and the health checks are judged (default 10 s). */
  readonly applySettleMs?: number;
  /** Go back to the OSC the node ran before when an apply fails its verification. */
  readonly revertFailedApplies?: boolean;
}

/** What the health check probes: the machine's own services only when the agent manages the machine. */
function healthProbes(o: AgentOptions): { kubeletHealthzUrl?: string; containerdCheck?: ContainerdCheck } {
  const onHost = resolve(o.root) === '/';
  const url = o.kubeletHealthzUrl ?? (onHost ? KUBELET_HEALTHZ_URL : false);
  const containerd = o.containerdCheck ?? (onHost ? ctrVersionCheck({ env: o.env }) : false);
  return {
    kubeletHealthzUrl: url === false ? undefined : url,
    containerdCheck: containerd === false ? undefined : containerd,
  };
}

export interface RunningAgent {
  readonly health: RunningServer;
  readonly metrics: RunningServer;
  /** Resolves with why the agent stopped: asked to, or it must be restarted by systemd. */
  readonly stopped: Promise<'stopped' | 'restart'>;
  stop(): void;
}

export async function runAgent(o: AgentOptions): Promise<RunningAgent> {
  const { config, log } = o;
  // the kubelet needs credentials to register before the agent can find its Node (node-side §5.5)
  await writeKubeletBootstrapKubeconfig({ root: o.root, config, logger: log });
  const env = o.env ?? process.env;
  const host = hostName(o.nodeName);
  // with a per-node identity the agent's name is its Node's (the identity names it); it may only
  // read that Node, so it never looks Nodes up by hostname
  const nodeIdentity = usesNodeIdentity(config, env)
    ? await identityNodeName({ root: o.root, nodeName: o.nodeName, hostName: host })
    : undefined;
  const kubeConfig = await agentCredentials({
    config,
    root: o.root,
    env,
    identityNodeName: async () => nodeIdentity ?? host,
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
  const recorder = new EventRecorder({ http, component: 'gardener-node-agent', host: nodeName ?? host, log });
  // every unit job the agent runs is counted and recorded on its Node, as upstream's dbus layer does
  let ownNode: () => V1Node | undefined = () => undefined;
  const systemd = recordingUnitEvents(countingRestarts(o.systemd, ownMetrics), recorder, () => ownNode());
  const osc = config.controllers.operatingSystemConfig;
  // the probes the health check runs judge every apply too, once its settle time is over
  const probes = healthProbes(o);
  const verifyProbes = [
    ...(probes.kubeletHealthzUrl
      ? [{ name: 'kubelet', check: kubeletHealthzProbe(probes.kubeletHealthzUrl) }]
      : []),
    ...(probes.containerdCheck ? [{ name: 'containerd', check: probes.containerdCheck }] : []),
  ];
  const oscController = startOscController(
    {
      http,
      client,
      secretName: osc.secretName ?? '',
      nodeName,
      hostName: host,
      kubernetesVersion: osc.kubernetesVersion ? formatSemVer(osc.kubernetesVersion) : '',
      syncPeriodMs: (osc.syncPeriod ?? 600e9) / 1e6,
      root: o.root,
      systemd,
      images: o.images,
      recorder,
      restartSelf,
      log,
      metrics,
      agentMetrics: ownMetrics,
      applyBarrier: applyBarrierFromEnv(o.env ?? process.env),
      applySettleMs: o.applySettleMs,
      verifyProbes,
      revertFailedApplies: o.revertFailedApplies,
    },
    root.signal,
  );
  ownNode = () => oscController.nodes.list()[0];
  const token = startTokenController(
    {
      http,
      syncConfigs: config.controllers.token.syncConfigs ?? [],
      syncPeriodMs: (config.controllers.token.syncPeriod ?? 3600e9) / 1e6,
      root: o.root,
      log,
      metrics,
      agentMetrics: ownMetrics,
    },
    root.signal,
  );
  // the node controller: units an operator asks to restart through the Node annotation (node-side §9)
  const nodeController = new Controller({
    name: 'node',
    log,
    metrics,
    timeoutMs: 3 * 60_000,
    reconcile: async (_key, ctx) => {
      const node = oscController.nodes.list()[0];
      if (node) await restartRequestedServices(node, client, systemd, ctx.log);
    },
  });
  oscController.nodes.on({
    add: (node) => restartAnnotationChanged(undefined, node) && nodeController.queue.add('node'),
    update: (previous, node) => restartAnnotationChanged(previous, node) && nodeController.queue.add('node'),
  });
  nodeController.start(root.signal);
  const leaseController = startLeaseController(
    {
      client,
      node: () => oscController.nodes.list()[0],
      log,
      metrics,
    },
    root.signal,
  );
  // the first heartbeat must not wait a renew interval when the Node appears after start-up: the
  // seed counts a node as running the agent only once its Lease exists
  oscController.nodes.on({ add: () => leaseController.queue.add('lease') });

  // kubelet and containerd are restarted after a minute of failing; nothing more (node-side §11)
  const healthCheck = startHealthCheckController(
    {
      ...probes,
      node: () => oscController.nodes.list()[0],
      systemd,
      events: new EventRecorder({
        http,
        component: HEALTH_CHECK_CONTROLLER_NAME,
        host: nodeName ?? host,
        log,
      }),
      client,
      intervalMs: o.healthCheckIntervalMs,
      log,
      metrics,
      healthMetrics: ownMetrics,
    },
    root.signal,
  );
  if (healthCheck) {
    // a Node change (Ready flapping, lost addresses) is checked at once, not up to 30 s later
    const checkNow = () => healthCheck.queue.add(HEALTH_CHECK_KEY);
    oscController.nodes.on({ add: checkNow, update: checkNow, delete: checkNow });
  }

  // the per-node identity renews its client certificate before it expires
  if (nodeIdentity)
    startCertificateController(
      {
        file: new HostRoot(o.root).path(PATH.nodeAgentKubeconfig),
        nodeName: nodeIdentity,
        client,
        log,
        metrics,
        onCertificate: (notAfter) => ownMetrics.trackClientCertificate(notAfter),
      },
      root.signal,
    );

  // Once the agent has its own token the legacy downloader must go (node-side §5.6, migration).
  await cleanCloudConfigDownloader({ root: o.root, systemd, logger: log });

  // A changed hostname changes which Node is ours: start over (node-side §12.2).
  const startupHost = host;
  const hostnameCheck = setInterval(() => {
    if (!o.nodeName && osHostname().toLowerCase() !== startupHost) {
      log.info(
        { from: startupHost, to: osHostname().toLowerCase() },
        'Hostname has changed, restarting gardener-node-agent',
      );
      restartSelf();
    }
  }, o.hostnameCheckIntervalMs ?? 30_000);
  hostnameCheck.unref();

  let synced = false;
  void Promise.all([oscController.synced(), token.synced()]).then(
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
    },
    'Started gardener-node-agent',
  );

  const stopped = new Promise<'stopped' | 'restart'>((resolve) => {
    root.signal.addEventListener(
      'abort',
      () => {
        clearInterval(hostnameCheck);
        void Promise.all([
          oscController.controller.stopped(),
          healthCheck?.stopped(),
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
