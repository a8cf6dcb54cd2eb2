/**
 * A shoot's credentials as they are now, for `KubeHttp`: the seed secret `gardener-internal` of the
 * shoot namespace is read from the seed cache at every request, so a token gardenlet rotates is
 * used at once, without a restart and without polling. Only when that secret does not exist is
 * `gardener` read (a GET, at most once a minute), as extensions reach a shoot.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { NAME } from '../../api/index.js';
import { type Clock, realClock } from '../../runtime/clock.js';
import type { Informer } from '../../runtime/kube/informer.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import type { ClusterAccess, HttpsOptions, RestConfig } from '../../runtime/kube/rest-config.js';
import { type SecretReader, shootRestConfigFromSecrets } from '../shoot-secrets/index.js';

const FALLBACK_TTL_MS = 60_000;

export interface ShootAccessOptions {
  readonly namespace: string;
  /** The seed cache's informer on every `gardener-internal` secret. */
  readonly internal: Informer<V1Secret>;
  /** Reads `gardener` when `gardener-internal` is missing. */
  readonly seed: SecretReader;
  readonly clock?: Clock;
}

export class ShootAccess implements ClusterAccess {
  private parsed: { key: string; config: RestConfig } | undefined;
  private fallback: { at: number; secret: V1Secret | undefined } | undefined;
  private server: { server: string; proxyUrl?: string } | undefined;

  constructor(private readonly o: ShootAccessOptions) {}

  /** The credentials now; throws ShootKubeConfigError (or an API error reading `gardener`). */
  async current(): Promise<RestConfig> {
    const internal = this.o.internal.get(NAME.shootInternalAccessSecret, this.o.namespace);
    const external = internal ? undefined : await this.external();
    const secret = internal ?? external;
    const key = `${secret?.metadata?.name}/${secret?.metadata?.uid}/${secret?.metadata?.resourceVersion}`;
    if (this.parsed?.key !== key)
      this.parsed = { key, config: shootRestConfigFromSecrets(internal, external, this.o.namespace) };
    this.server ??= this.parsed.config.getCurrentCluster();
    return this.parsed.config;
  }

  /** The server of the first credentials read (KubeHttp is bound to one server). */
  getCurrentCluster(): { readonly server: string; readonly proxyUrl?: string } | null {
    return this.server ?? null;
  }

  async applyToHTTPSOptions(options: HttpsOptions): Promise<void> {
    const config = await this.current();
    await config.applyToHTTPSOptions(options);
  }

  private async external(): Promise<V1Secret | undefined> {
    const now = (this.o.clock ?? realClock).now();
    if (!this.fallback || now - this.fallback.at >= FALLBACK_TTL_MS) {
      const secret = await this.o.seed.getIfExists<V1Secret>(RESOURCE.secret, {
        name: NAME.shootAccessSecret,
        namespace: this.o.namespace,
      });
      this.fallback = { at: now, secret };
    }
    return this.fallback.secret;
  }
}
