/**
 * Where the API server is and how to authenticate to it, without @kubernetes/client-node (whose
 * model classes alone cost a small process like the node agent about 38 MiB). It answers the two
 * questions `KubeHttp` asks a client-node `KubeConfig`, so both work there: the server, and the
 * TLS material plus headers for one request. A token file is read again for every request, so a
 * token rotated on disk is used at once, without a restart.
 */
import { readFile } from 'node:fs/promises';
import type { ExecCredentials } from './exec-credential.js';

export interface RestConfigOptions {
  /** `https://host:port`, without a trailing path. */
  readonly server: string;
  readonly ca?: Buffer;
  readonly insecureSkipTlsVerify?: boolean;
  readonly tlsServerName?: string;
  /** An HTTP(S) proxy the connection tunnels through (CONNECT), as a kubeconfig's `proxy-url`. */
  readonly proxyUrl?: string;
  readonly token?: string;
  /** Read on every request; wins over `token`. */
  readonly tokenFile?: string;
  readonly clientCertificate?: Buffer;
  readonly clientKey?: Buffer;
  readonly username?: string;
  readonly password?: string;
  /** Asked on every request (it caches); its token or client certificate win over the static ones. */
  readonly exec?: { credentials(): Promise<ExecCredentials> };
}

/** What `KubeHttp` fills in per request (the shape of client-node's `applyToHTTPSOptions`). */
export interface HttpsOptions {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized?: boolean;
  servername?: string;
  headers?: Record<string, string>;
  /** `user:password`: client-node puts basic auth here instead of into a header. */
  auth?: string;
}

/** The part of a client-node `KubeConfig` that `KubeHttp` uses; `RestConfig` has it too. */
export interface ClusterAccess {
  getCurrentCluster(): { readonly server: string; readonly proxyUrl?: string } | null;
  applyToHTTPSOptions(options: HttpsOptions): Promise<void>;
}

export class RestConfig implements ClusterAccess {
  readonly server: string;

  constructor(readonly options: RestConfigOptions) {
    this.server = options.server.replace(/\/+$/, '');
  }

  getCurrentCluster(): { readonly server: string; readonly proxyUrl?: string } {
    return { server: this.server, proxyUrl: this.options.proxyUrl };
  }

  async applyToHTTPSOptions(out: HttpsOptions): Promise<void> {
    const o = this.options;
    const exec = await o.exec?.credentials();
    if (o.ca) out.ca = o.ca;
    const cert = exec?.clientCertificate ?? o.clientCertificate;
    const key = exec?.clientKey ?? o.clientKey;
    if (cert) out.cert = cert;
    if (key) out.key = key;
    out.rejectUnauthorized = !o.insecureSkipTlsVerify;
    if (o.tlsServerName) out.servername = o.tlsServerName;
    const authorization = exec?.token ? `Bearer ${exec.token}` : await this.authorization();
    if (authorization) out.headers = { ...out.headers, authorization };
  }

  private async authorization(): Promise<string | undefined> {
    const o = this.options;
    if (o.tokenFile) {
      const token = (await readFile(o.tokenFile, 'utf8')).trim();
      if (!token) throw new Error(`token file ${o.tokenFile} is empty`);
      return `Bearer ${token}`;
    }
    if (o.token) return `Bearer ${o.token}`;
    if (o.username !== undefined || o.password !== undefined) {
      return `Basic ${Buffer.from(`${o.username ?? ''}:${o.password ?? ''}`).toString('base64')}`;
    }
    return undefined;
  }
}
