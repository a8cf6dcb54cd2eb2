/**
 * A kubeconfig user's `exec` credential plugin, as client-go runs it (k8s.io/client-go v0.29
 * plugin/pkg/client/auth/exec/exec.go): the command with its args, the process environment plus
 * the plugin's `env`, and `KUBERNETES_EXEC_INFO` holding the request (an `ExecCredential` with
 * `spec.interactive: false`, and the cluster when `provideClusterInfo` is set). Its standard output
 * is an `ExecCredential` whose `status` carries a bearer token or a PEM client certificate and key;
 * they are kept until `status.expirationTimestamp` (for good when there is none), then the plugin
 * runs again. Never interactive: a controller has no terminal to ask on.
 */
import { execFile } from 'node:child_process';

/** The plugin's configuration: a kubeconfig's `users[].user.exec`. */
export interface ExecConfig {
  readonly apiVersion: string;
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: readonly { readonly name: string; readonly value: string }[];
  readonly installHint?: string;
  readonly provideClusterInfo?: boolean;
}

/** What a request needs of the plugin's answer. */
export interface ExecCredentials {
  readonly token?: string;
  readonly clientCertificate?: Buffer;
  readonly clientKey?: Buffer;
}

/** The cluster handed to a plugin with `provideClusterInfo` (ExecCredential `spec.cluster`). */
export interface ExecClusterInfo {
  readonly server: string;
  readonly 'certificate-authority-data'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  readonly 'tls-server-name'?: string;
}

export const EXEC_API_VERSIONS = [
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
] as const;

/** How long before expiry credentials count as expired (a request must not race the expiry). */
const EXPIRY_MARGIN_MS = 10_000;
const TIMEOUT_MS = 60_000;

interface Cached {
  readonly credentials: ExecCredentials;
  readonly expiresAt: number;
}

export class ExecCredentialPlugin {
  private cached: Cached | undefined;
  private running: Promise<Cached> | undefined;

  constructor(
    readonly config: ExecConfig,
    private readonly cluster?: ExecClusterInfo,
    private readonly now: () => number = Date.now,
  ) {}

  /** The current credentials, running the plugin when there are none or they expired. */
  async credentials(): Promise<ExecCredentials> {
    if (this.cached && this.now() < this.cached.expiresAt) return this.cached.credentials;
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    this.cached = await this.running;
    return this.cached.credentials;
  }

  private async run(): Promise<Cached> {
    const c = this.config;
    const request = {
      apiVersion: c.apiVersion,
      kind: 'ExecCredential',
      spec: { interactive: false, ...(c.provideClusterInfo && this.cluster && { cluster: this.cluster }) },
    };
    const env = {
      ...process.env,
      ...Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value])),
      KUBERNETES_EXEC_INFO: JSON.stringify(request),
    };
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        c.command,
        [...(c.args ?? [])],
        { env, timeout: TIMEOUT_MS, maxBuffer: 1 << 20 },
        (error, out, err) => {
          if (!error) return resolve(out);
          const hint = c.installHint ? `\n${c.installHint}` : '';
          const stderr = err.trim() ? `: ${err.trim()}` : '';
          reject(new Error(`exec credential plugin ${c.command}: ${error.message.trim()}${stderr}${hint}`));
        },
      );
    });
    return this.parse(stdout);
  }

  private parse(stdout: string): Cached {
    const fail = (detail: string) => new Error(`exec credential plugin ${this.config.command}: ${detail}`);
    let answer: {
      apiVersion?: unknown;
      kind?: unknown;
      status?: {
        token?: unknown;
        clientCertificateData?: unknown;
        clientKeyData?: unknown;
        expirationTimestamp?: unknown;
      };
    };
    try {
      answer = JSON.parse(stdout);
    } catch (e) {
      throw fail(`its output is not an ExecCredential (JSON): ${(e as Error).message}`);
    }
    if (answer?.kind !== 'ExecCredential')
      throw fail(`kind: want ExecCredential, got ${JSON.stringify(answer?.kind)}`);
    if (answer.apiVersion !== this.config.apiVersion)
      throw fail(
        `apiVersion: the kubeconfig asks for ${this.config.apiVersion}, the plugin answered ${JSON.stringify(answer.apiVersion)}`,
      );
    const s = answer.status;
    if (!s || typeof s !== 'object') throw fail('status: missing');
    const text = (field: keyof typeof s) => {
      const value = s[field];
      if (value === undefined || value === null || value === '') return undefined;
      if (typeof value !== 'string') throw fail(`status.${field}: not a string`);
      return value;
    };
    const token = text('token');
    const cert = text('clientCertificateData');
    const key = text('clientKeyData');
    if ((cert === undefined) !== (key === undefined))
      throw fail('status: clientCertificateData and clientKeyData come together');
    if (token === undefined && cert === undefined)
      throw fail('status: neither token nor clientCertificateData and clientKeyData');
    const expiry = text('expirationTimestamp');
    let expiresAt = Number.POSITIVE_INFINITY;
    if (expiry !== undefined) {
      const at = Date.parse(expiry);
      if (Number.isNaN(at)) throw fail(`status.expirationTimestamp: "${expiry}" is not a time (RFC 3339)`);
      expiresAt = at - EXPIRY_MARGIN_MS;
    }
    return {
      credentials: {
        ...(token !== undefined && { token }),
        ...(cert !== undefined && { clientCertificate: Buffer.from(cert), clientKey: Buffer.from(key!) }),
      },
      expiresAt,
    };
  }
}
