/**
 * The informers the agent's controllers read, each defined once so that every reader gets the same
 * watch from the agent's cache (as seed/shoot-nodes/shoot-informers.ts does for the seed): its own
 * OSC secret and each token secret, by name only (its Role is restricted by resourceNames), and its
 * own Node (by name, or by hostname label until it is registered).
 */
import type { V1Node, V1Secret } from '@kubernetes/client-node';
import { LABEL, NAMESPACE_KUBE_SYSTEM } from '../../api/index.js';
import { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import type { Informer } from '../../runtime/kube/informer.js';
import type { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import type { Logger } from '../../runtime/logging.js';
import type { RuntimeMetrics } from '../../runtime/metrics.js';

/** One secret of `kube-system`, watched alone. */
export function kubeSystemSecret(cache: ClusterCache, name: string): Informer<V1Secret> {
  return cache.informer({
    resource: RESOURCE.secret,
    namespace: NAMESPACE_KUBE_SYSTEM,
    fieldSelector: `metadata.name=${name}`,
  });
}

/** The agent's own Node: by name when known, else by the hostname label until it registers. */
export function ownNode(
  cache: ClusterCache,
  nodeName: string | undefined,
  hostName: string,
): Informer<V1Node> {
  return cache.informer(
    nodeName
      ? { resource: RESOURCE.node, fieldSelector: `metadata.name=${nodeName}` }
      : { resource: RESOURCE.node, labelSelector: `${LABEL.hostname}=${hostName}` },
  );
}

/** A cache over `http`, started at once; for a controller run without the agent's shared cache. */
export function startedCache(
  http: KubeHttp,
  signal: AbortSignal,
  log?: Logger,
  metrics?: RuntimeMetrics,
): ClusterCache {
  const cache = new ClusterCache({ name: 'node-agent', http, log, metrics });
  cache.start(signal);
  return cache;
}
