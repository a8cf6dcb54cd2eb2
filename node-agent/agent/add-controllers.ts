/**
 * The agent's controllers, added the way upstream's composition root adds them (gardener v1.91.4
 * pkg/nodeagent/controller/add.go): operatingsystemconfig, token, node, lease, health check, with a
 * per-node identity the certificate, the hostname check unless the Node name was given, and for a
 * v1.150.0 configuration the secret-name change and the systemd unit check (gardener v1.150.0
 * pkg/nodeagent/controller/add.go).
 */
import { hostname as osHostname } from 'node:os';
import type { V1Node } from '@kubernetes/client-node';
import { formatSemVer, PATH } from '../../api/index.js';
import type { EventSink } from '../../runtime/events.js';
import type { RunningController } from '../../runtime/running-controller.js';
import { applyBarrierFromEnv } from '../applier/apply-barrier.js';
import { HostRoot } from '../applier/host-root.js';
import { hostContainerdTool } from '../containerd/containerd-tool.js';
import { addCertificateController } from '../controllers/certificate/add.js';
import { driftCheckInterval } from '../controllers/drift/drift-interval.js';
import { driftMetrics } from '../controllers/drift/drift-metrics.js';
import { DriftMonitor } from '../controllers/drift/drift-monitor.js';
import { addHealthCheckController, HEALTH_CHECK_CONTROLLER_NAME } from '../controllers/healthcheck/add.js';
import { addHostnameCheckController } from '../controllers/hostname/add.js';
import { addLeaseController } from '../controllers/lease/add.js';
import { addNodeController } from '../controllers/node/add.js';
import { addOscController } from '../controllers/operatingsystemconfig/add.js';
import { addSecretNameChangeController } from '../controllers/secretnamechange/add.js';
import { addSystemdUnitCheckController } from '../controllers/systemdunitcheck/add.js';
import { addTokenController } from '../controllers/token/add.js';
import { TOKEN_FILE_MODE, TOKEN_FILE_MODE_V150 } from '../controllers/token/token-file-sync.js';
import type { AgentContext } from './agent-context.js';
import { nodeEventSink } from './event-sinks.js';
import { type HealthProbes, verifyProbes } from './health-probes.js';
import { inEffect } from './in-effect-checks.js';

/** The containerd the agent asks: `--containerd`, else the node's own when the root is `/`. */
function containerdOf(o: AgentContext['options']) {
  return o.containerd ?? (o.root === '/' ? hostContainerdTool(o.env) : undefined);
}

function driftMonitor(
  agent: AgentContext,
  node: () => V1Node | undefined,
  events: EventSink,
  intervalMs: number,
): DriftMonitor {
  const o = agent.options;
  return new DriftMonitor({
    root: o.root,
    systemd: agent.systemd,
    images: o.images,
    node,
    client: agent.client,
    recorder: events,
    metrics: driftMetrics(agent.metrics.registry),
    disruptionPolicy: o.disruptionPolicy,
    hostName: agent.hostName.toLowerCase(),
    containerd: containerdOf(o),
    intervalMs,
    log: agent.log,
  });
}

export function addAgentControllers(agent: AgentContext, probes: HealthProbes): RunningController[] {
  const { options: o, signal } = agent;
  const { operatingSystemConfig: osc, token } = o.config.controllers;
  const node = () => agent.nodes.list()[0];
  const host = agent.nodeName ?? agent.hostName;
  const events = nodeEventSink({
    contract: o.contract,
    http: agent.http,
    component: HEALTH_CHECK_CONTROLLER_NAME,
    controller: HEALTH_CHECK_CONTROLLER_NAME,
    nodeOrHost: host,
    hostName: agent.hostName,
    log: agent.log,
  });
  // drift of the node from what it applied: watched, reported on the Node, repaired by policy
  const driftIntervalMs = driftCheckInterval(o);
  const drift =
    driftIntervalMs === undefined ? undefined : driftMonitor(agent, node, events, driftIntervalMs);
  const controllers = [
    addOscController(
      {
        ...agent,
        root: o.root,
        images: o.images,
        secretName: osc.secretName ?? '',
        kubernetesVersion: osc.kubernetesVersion ? formatSemVer(osc.kubernetesVersion) : '',
        syncPeriodMs: (osc.syncPeriod ?? 600e9) / 1e6,
        applyBarrier: applyBarrierFromEnv(o.env ?? process.env),
        applySettleMs: o.applySettleMs,
        verifyProbes: verifyProbes(probes),
        ...inEffect(agent),
        revertFailedApplies: o.revertFailedApplies,
        disruptionPolicy: o.disruptionPolicy,
        containerd: containerdOf(o),
        nodeRoleAndZoneLabels: o.contract === 'v1.150.0',
        onApplied: drift && (() => void drift.trigger()),
      },
      signal,
    ),
    addTokenController(
      {
        ...agent,
        root: o.root,
        syncConfigs: token.syncConfigs ?? [],
        syncPeriodMs: (token.syncPeriod ?? 3600e9) / 1e6,
        fileMode: o.contract === 'v1.150.0' ? TOKEN_FILE_MODE_V150 : TOKEN_FILE_MODE,
      },
      signal,
    ),
    addNodeController(agent, signal),
    addLeaseController({ ...agent, node }, signal),
  ];
  // kubelet and containerd are restarted after a minute of failing; nothing more
  const health = addHealthCheckController(
    {
      ...agent,
      ...probes,
      node,
      events,
      intervalMs: o.healthCheckIntervalMs,
      healthMetrics: agent.agentMetrics,
    },
    signal,
  );
  if (health) controllers.push(health);
  // the per-node identity renews its client certificate before it expires
  if (agent.nodeIdentity) {
    const file = new HostRoot(o.root).path(PATH.nodeAgentKubeconfig);
    const onCertificate = (notAfter: number) => agent.agentMetrics.trackClientCertificate(notAfter);
    controllers.push(
      addCertificateController({ ...agent, file, nodeName: agent.nodeIdentity, onCertificate }, signal),
    );
  }
  // v1.150.0: the Node's secret-name label renames the OSC secret the agent follows
  if (o.contract === 'v1.150.0' && o.configFile)
    controllers.push(addSecretNameChangeController({ ...agent, configFile: o.configFile }, signal));
  // v1.150.0: how the OSC's units are doing, as the Node condition SystemdUnitsReady (v1.91.4 never wrote it)
  const unitCheck = o.config.controllers.systemdUnitCheck;
  if (o.contract === 'v1.150.0' && unitCheck) {
    const check = {
      ...agent,
      root: o.root,
      node,
      syncPeriod: unitCheck.syncPeriod ?? 60e9,
      stuckThreshold: unitCheck.stuckThreshold ?? 300e9,
    };
    controllers.push(addSystemdUnitCheckController(check, signal));
  }
  drift?.start(signal);
  // a changed hostname changes which Node is ours: start over
  if (!o.nodeName) {
    const check = {
      startupHost: agent.hostName,
      hostname: osHostname,
      intervalMs: o.hostnameCheckIntervalMs,
    };
    controllers.push(addHostnameCheckController({ ...agent, ...check }, signal));
  }
  return controllers;
}
