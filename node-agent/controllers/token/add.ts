/**
 * The token controller (gardener v1.91.4 `pkg/nodeagent/controller/token/add.go`): one watch per sync config, on that secret alone (field
 * selector on the name, so the agent's Role stays restricted by resourceNames), plus a resync
 * every syncPeriod. A missing access-token label is only logged: real gardenlets do not set it.
 */
import { NAMESPACE_KUBE_SYSTEM, type TokenSyncConfig } from '../../../api/index.js';
import { newController } from '../../../runtime/controller-builder.js';
import type { ClusterCache } from '../../../runtime/kube/cluster-cache.js';
import type { KubeHttp } from '../../../runtime/kube/kube-http.js';
import { type Logger, silentLogger } from '../../../runtime/logging.js';
import type { RuntimeMetrics } from '../../../runtime/metrics.js';
import type { RunningController } from '../../../runtime/running-controller.js';
import { kubeSystemSecret, startedCache } from '../agent-informers.js';
import type { AgentMetrics } from '../agent-metrics.js';
import { hasAccessTokenLabel, syncTokenFile } from './token-file-sync.js';

export const TOKEN_CONTROLLER_NAME = 'token';

export interface TokenControllerOptions {
  /** Without the agent's shared cache, the secrets are watched through a cache of its own over this. */
  readonly http: KubeHttp;
  readonly cache?: ClusterCache;
  readonly syncConfigs: readonly TokenSyncConfig[];
  readonly syncPeriodMs: number;
  /** The token files' mode: 0600 (v1.91.4), 0640 (v1.150.0). */
  readonly fileMode?: number;
  readonly root: string;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
  readonly agentMetrics?: AgentMetrics;
}

export function addTokenController(o: TokenControllerOptions, signal: AbortSignal): RunningController {
  const log = o.log ?? silentLogger;
  const cache = o.cache ?? startedCache(o.http, signal, log, o.metrics);
  const pathOf = new Map(o.syncConfigs.map((s) => [s.secretName, s.path]));
  // the files, not the secrets: they are what the agent's clients authenticate with
  for (const { path } of o.syncConfigs) o.agentMetrics?.trackTokenFile(o.root, path);
  const builder = newController(TOKEN_CONTROLLER_NAME, {
    concurrency: Math.max(1, o.syncConfigs.length),
    timeoutMs: 3 * 60_000,
    log,
    metrics: o.metrics,
  });
  const informers = new Map(o.syncConfigs.map((s) => [s.secretName, kubeSystemSecret(cache, s.secretName)]));
  for (const [name, informer] of informers)
    builder.watches(informer, () => name, { create: true, update: true });
  return builder.start(signal, async (name, ctx) => {
    const secret = informers.get(name)?.get(name, NAMESPACE_KUBE_SYSTEM);
    const path = pathOf.get(name);
    if (!secret || !path) throw new Error(`secret ${NAMESPACE_KUBE_SYSTEM}/${name} not found`);
    if (!hasAccessTokenLabel(secret))
      ctx.log.debug({ secret: name }, 'Access token secret has no gardener.cloud/role=access-token label');
    const outcome = await syncTokenFile(o.root, secret, path, o.fileMode);
    if (outcome === 'written') ctx.log.info({ secret: name, path }, 'Updated token file');
    return { requeueAfterMs: o.syncPeriodMs };
  });
}
