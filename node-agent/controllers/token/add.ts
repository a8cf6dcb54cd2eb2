/**
 * The token controller (node-side §8): one watch per sync config, on that secret alone (field
 * selector on the name, so the agent's Role stays restricted by resourceNames), plus a resync
 * every syncPeriod. A missing access-token label is only logged: real gardenlets do not set it.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { NAMESPACE_KUBE_SYSTEM, type TokenSyncConfig } from '../../../api/index.js';
import { Controller } from '../../../runtime/controller.js';
import { Informer } from '../../../runtime/kube/informer.js';
import type { KubeHttp } from '../../../runtime/kube/kube-http.js';
import { type Logger, silentLogger } from '../../../runtime/logging.js';
import type { RuntimeMetrics } from '../../../runtime/metrics.js';
import type { AgentMetrics } from '../agent-metrics.js';
import { hasAccessTokenLabel, syncTokenFile } from './token-file-sync.js';

export const TOKEN_CONTROLLER_NAME = 'token';

export interface TokenControllerOptions {
  readonly http: KubeHttp;
  readonly syncConfigs: readonly TokenSyncConfig[];
  readonly syncPeriodMs: number;
  readonly root: string;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
  readonly agentMetrics?: AgentMetrics;
}

export function startTokenController(
  o: TokenControllerOptions,
  signal: AbortSignal,
): { controller: Controller; synced(): Promise<void> } {
  const log = o.log ?? silentLogger;
  const informers = new Map<string, Informer<V1Secret>>();
  for (const sync of o.syncConfigs) {
    informers.set(
      sync.secretName,
      new Informer<V1Secret>({
        http: o.http,
        path: `/api/v1/namespaces/${NAMESPACE_KUBE_SYSTEM}/secrets`,
        fieldSelector: `metadata.name=${sync.secretName}`,
        log,
        metrics: o.metrics,
      }),
    );
  }
  const pathOf = new Map(o.syncConfigs.map((s) => [s.secretName, s.path]));
  // the files, not the secrets: they are what the agent's clients authenticate with
  for (const { path } of o.syncConfigs) o.agentMetrics?.trackTokenFile(o.root, path);
  const controller = new Controller({
    name: TOKEN_CONTROLLER_NAME,
    concurrency: Math.max(1, o.syncConfigs.length),
    timeoutMs: 3 * 60_000,
    log,
    metrics: o.metrics,
    reconcile: async (name, ctx) => {
      const secret = informers.get(name)?.get(name, NAMESPACE_KUBE_SYSTEM);
      const path = pathOf.get(name);
      if (!secret || !path) throw new Error(`secret ${NAMESPACE_KUBE_SYSTEM}/${name} not found`);
      if (!hasAccessTokenLabel(secret))
        ctx.log.debug({ secret: name }, 'Access token secret has no gardener.cloud/role=access-token label');
      const outcome = await syncTokenFile(o.root, secret, path);
      if (outcome === 'written') ctx.log.info({ secret: name, path }, 'Updated token file');
      return { requeueAfterMs: o.syncPeriodMs };
    },
  });
  for (const [name, informer] of informers) {
    informer.on({ add: () => controller.queue.add(name), update: () => controller.queue.add(name) });
    informer.start(signal);
  }
  const synced = Promise.all([...informers.values()].map((i) => i.waitForSync(signal))).then(() =>
    controller.start(signal),
  );
  synced.catch(() => undefined);
  return { controller, synced: () => synced };
}
