/**
 * Wires the node agent authorizer: per selected shoot, its world (world.ts) over the shoot cache's
 * Nodes, OSC secrets and CertificateSigningRequests, shared with the other controllers; for the
 * process, the HTTPS endpoint (webhook-server.ts) that answers each shoot's kube-apiserver from its
 * world. Runs only with per-node identities.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import type { ControllerManagerConfiguration } from '../../seed/manager/config.js';
import type {
  RunningController,
  SeedContext,
  SeedControllerStarter,
  ShootContext,
  ShootControllerStarter,
} from '../../seed/manager/context.js';
import { type CsrObject, NodeAgentCsrIndex, shootCsrs } from '../../seed/node-identity/node-agent-csr.js';
import { oscSecrets, shootNodes } from '../../seed/shoot-nodes/shoot-informers.js';
import { watchGoneNodes } from './gone-nodes.js';
import {
  type AuthorizedShoot,
  authorizerMetrics,
  type RunningAuthorizerServer,
  serveNodeAgentAuthorizer,
} from './webhook-server.js';
import { shootWorld } from './world.js';

export const AUTHORIZER_NAME = 'node-agent-authorizer';

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** The shoot's world, registered while the shoot runs. */
export function authorizedShoot(
  shoot: Pick<ShootContext, 'cache' | 'client'>,
  bootstrapWindowMs: number,
  acts?: () => boolean,
  eventsV1?: () => boolean,
): { shoot: AuthorizedShoot; synced: Promise<void>; stop: () => void } {
  const nodes = shootNodes(shoot.cache);
  const secrets = oscSecrets(shoot.cache);
  const csrs = shootCsrs(shoot.cache);
  const goneNodes = watchGoneNodes(nodes);
  const world = shootWorld({
    nodes,
    oscSecrets: secrets,
    csrs,
    csrIndex: new NodeAgentCsrIndex(csrs),
    bootstrapWindowMs,
    goneNodes,
    eventsV1,
  });
  const client: Pick<KubeClient, 'getIfExists'> = shoot.client;
  let synced = false;
  const done = Promise.all([nodes.waitForSync(), secrets.waitForSync(), csrs.waitForSync()]).then(() => {
    synced = true;
  });
  return {
    shoot: {
      synced: () => synced,
      world,
      acts,
      liveCsrRequester: async (name) =>
        (await client.getIfExists<CsrObject>(RESOURCE.certificateSigningRequest, { name }))?.spec?.username,
      livePodNode: async (namespace, name) =>
        (await client.getIfExists<V1Pod>(RESOURCE.pod, { namespace, name }))?.spec?.nodeName,
    },
    synced: done,
    stop: goneNodes.stop,
  };
}

export interface NodeAgentAuthorizer {
  /** Serves the endpoint while the process leads (undefined without `nodeAgent.authorizer`). */
  readonly seed: SeedControllerStarter | undefined;
  /** Registers each selected shoot's world. */
  readonly shoot: ShootControllerStarter;
}

export function nodeAgentAuthorizer(
  config: ControllerManagerConfiguration,
  /** Whether to decide for this shoot now (default: always). */
  actsFor?: (shoot: ShootContext, seed: SeedContext) => () => boolean,
  /** Whether the shoot follows the v1.150.0 contract (its agents record events.k8s.io/v1 events). */
  v150For?: (shoot: ShootContext, seed: SeedContext) => () => boolean,
): NodeAgentAuthorizer {
  const shoots = new Map<string, AuthorizedShoot>();
  const shoot: ShootControllerStarter = (ctx, env) => {
    const entry = authorizedShoot(
      ctx,
      config.nodeAgent.bootstrapWindow,
      actsFor?.(ctx, env),
      v150For?.(ctx, env),
    );
    shoots.set(ctx.namespace, entry.shoot);
    entry.synced.catch(() => undefined);
    const stopped = untilAborted(ctx.signal).then(() => {
      entry.stop();
      if (shoots.get(ctx.namespace) === entry.shoot) shoots.delete(ctx.namespace);
    });
    return { synced: () => entry.synced, stopped: () => stopped };
  };
  const server = config.nodeAgent.authorizer;
  if (!server) return { seed: undefined, shoot };
  const seed: SeedControllerStarter = (ctx: SeedContext): RunningController => {
    const log = ctx.log.child({ controller: AUTHORIZER_NAME });
    let running: Promise<RunningAuthorizerServer | undefined> = serveNodeAgentAuthorizer({
      host: server.bindAddress,
      port: server.port,
      certFile: server.certFile,
      keyFile: server.keyFile,
      tokenKeyFile: server.tokenKeyFile,
      shoot: (namespace) => shoots.get(namespace),
      metrics: authorizerMetrics(ctx.registry as Registry),
      log,
    }).then((s) => {
      log.info({ url: s.url }, 'Serving the node agent authorizer');
      return s;
    });
    running = running.catch((e) => {
      log.error({ err: e }, 'Serving the node agent authorizer failed');
      return undefined;
    });
    const stopped = untilAborted(ctx.signal).then(async () => (await running)?.close());
    const synced = async () => {
      if (!(await running)) throw new Error('the node agent authorizer is not serving');
    };
    return { synced, stopped: () => stopped };
  };
  return { seed, shoot };
}
