/** A client-node KubeConfig with the same credentials, talking to the API server through a proxy. */
import { KubeConfig } from '@kubernetes/client-node';
import type { FreezingProxy } from './freezing-proxy.js';

export function viaProxy(kubeConfig: KubeConfig, proxy: FreezingProxy): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: kubeConfig.clusters.map((c) => ({ ...c, server: `https://${proxy.url}` })),
    users: kubeConfig.users,
    contexts: kubeConfig.contexts,
    currentContext: kubeConfig.currentContext,
  });
  return kc;
}
