/**
 * Credentials for each shoot, read from the seed secret `gardener-internal` (else `gardener`) in
 * the shoot namespace, as extensions reach shoots. Cached briefly: the secret is rotated by
 * gardenlet, so a cached kubeconfig must not outlive it by much, and every reconcile reading two
 * secrets would be wasteful.
 */
import type { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../../runtime/logging.js';
import { loadShootKubeConfig } from '../shoot-secrets/index.js';

const TTL_MS = 60_000;

export class ShootClients {
  private readonly cache = new Map<string, { kubeConfig: KubeConfig; at: number }>();

  constructor(
    private readonly seedCore: CoreV1Api,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async kubeConfig(namespace: string): Promise<KubeConfig> {
    const cached = this.cache.get(namespace);
    if (cached && this.now() - cached.at < TTL_MS) return cached.kubeConfig;
    const kubeConfig = await loadShootKubeConfig(this.seedCore, namespace);
    if (!cached) this.log.debug({ shoot: namespace }, 'Loaded shoot credentials');
    this.cache.set(namespace, { kubeConfig, at: this.now() });
    return kubeConfig;
  }

  forget(namespace: string): void {
    this.cache.delete(namespace);
  }
}
