/**
 * A kubeconfig file as a `RestConfig`: its current context's cluster and user. Relative file
 * paths resolve against the kubeconfig's own directory, as kubectl does (k8s.io/client-go v0.29
 * tools/clientcmd/loader.go, ResolveLocalPaths; an `exec` command only when it holds a path
 * separator, so a bare name is looked up on $PATH). Credentials: token, token file, client
 * certificate, basic auth and `exec` credential plugins (exec-credential.ts); an `auth-provider`
 * user is an error naming the field, not a silent anonymous client.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import * as z from 'zod';
import { fieldErrorsFromZod, parseYaml, ValidationError } from '../../api/index.js';
import { EXEC_API_VERSIONS, ExecCredentialPlugin } from './exec-credential.js';
import { type ClusterAccess, type HttpsOptions, RestConfig } from './rest-config.js';

const Cluster = z.object({
  server: z.string().min(1),
  'certificate-authority': z.string().optional(),
  'certificate-authority-data': z.string().optional(),
  'insecure-skip-tls-verify': z.boolean().optional(),
  'tls-server-name': z.string().optional(),
  'proxy-url': z.string().optional(),
});

const Exec = z.object({
  apiVersion: z.enum(EXEC_API_VERSIONS),
  command: z.string().min(1),
  args: z.array(z.string()).nullish(),
  env: z.array(z.object({ name: z.string().min(1), value: z.string() })).nullish(),
  installHint: z.string().optional(),
  provideClusterInfo: z.boolean().optional(),
  interactiveMode: z.enum(['Never', 'IfAvailable', 'Always']).optional(),
});

const User = z.object({
  token: z.string().optional(),
  tokenFile: z.string().optional(),
  'client-certificate': z.string().optional(),
  'client-certificate-data': z.string().optional(),
  'client-key': z.string().optional(),
  'client-key-data': z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
  exec: Exec.optional(),
  'auth-provider': z.undefined({ error: 'auth providers are not supported' }).optional(),
});

const Kubeconfig = z.object({
  clusters: z.array(z.object({ name: z.string().min(1), cluster: Cluster })).min(1),
  users: z.array(z.object({ name: z.string().min(1), user: User.nullish() })).default([]),
  contexts: z
    .array(
      z.object({
        name: z.string().min(1),
        context: z.object({ cluster: z.string().min(1), user: z.string().optional() }),
      }),
    )
    .min(1),
  'current-context': z.string().min(1),
});

/** `data` wins over `file`, as in client-go; a relative file is relative to the kubeconfig. */
async function material(
  data: string | undefined,
  file: string | undefined,
  baseDir: string,
): Promise<Buffer | undefined> {
  if (data) return Buffer.from(data, 'base64');
  if (file) return readFile(isAbsolute(file) ? file : join(baseDir, file));
  return undefined;
}

export async function restConfigFromKubeconfig(text: string, baseDir: string): Promise<RestConfig> {
  const parsed = Kubeconfig.safeParse(parseYaml(text));
  if (!parsed.success) throw new ValidationError('kubeconfig', fieldErrorsFromZod(parsed.error));
  const kc = parsed.data;
  const current = kc['current-context'];
  const fail = (field: string, detail: string) =>
    new ValidationError('kubeconfig', [{ type: 'Invalid', field, detail }]);
  const context = kc.contexts.find((c) => c.name === current)?.context;
  if (!context) throw fail('current-context', `no context named "${current}"`);
  const cluster = kc.clusters.find((c) => c.name === context.cluster)?.cluster;
  if (!cluster) throw fail(`contexts[${current}].context.cluster`, `no cluster named "${context.cluster}"`);
  const user = context.user ? kc.users.find((u) => u.name === context.user) : undefined;
  if (context.user && !user) {
    throw fail(`contexts[${current}].context.user`, `no user named "${context.user}"`);
  }
  const u = user?.user ?? {};
  const tokenFile = u.tokenFile && (isAbsolute(u.tokenFile) ? u.tokenFile : join(baseDir, u.tokenFile));
  const ca = await material(cluster['certificate-authority-data'], cluster['certificate-authority'], baseDir);
  if (u.exec?.interactiveMode === 'Always')
    throw fail(
      `users[${context.user}].user.exec.interactiveMode`,
      'Always: the plugin needs a terminal, which this process does not have',
    );
  const exec =
    u.exec &&
    new ExecCredentialPlugin(
      {
        ...u.exec,
        args: u.exec.args ?? undefined,
        env: u.exec.env ?? undefined,
        command:
          u.exec.command.includes('/') && !isAbsolute(u.exec.command)
            ? join(baseDir, u.exec.command)
            : u.exec.command,
      },
      {
        server: cluster.server,
        ...(ca && { 'certificate-authority-data': ca.toString('base64') }),
        ...(cluster['insecure-skip-tls-verify'] !== undefined && {
          'insecure-skip-tls-verify': cluster['insecure-skip-tls-verify'],
        }),
        ...(cluster['tls-server-name'] && { 'tls-server-name': cluster['tls-server-name'] }),
      },
    );
  return new RestConfig({
    server: cluster.server,
    ca,
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'],
    tlsServerName: cluster['tls-server-name'],
    proxyUrl: cluster['proxy-url'],
    exec,
    token: u.token,
    tokenFile,
    clientCertificate: await material(u['client-certificate-data'], u['client-certificate'], baseDir),
    clientKey: await material(u['client-key-data'], u['client-key'], baseDir),
    username: u.username,
    password: u.password,
  });
}

export async function loadKubeconfigFile(path: string): Promise<RestConfig> {
  const text = await readFile(path, 'utf8');
  try {
    return await restConfigFromKubeconfig(text, dirname(path));
  } catch (e) {
    if (e instanceof Error) e.message = `${path}: ${e.message}`;
    throw e;
  }
}

/**
 * A kubeconfig file that is read again whenever it changes on disk (checked with one `stat` per
 * request), so credentials rotated by rewriting the file (a renewed client certificate, say) are
 * used from the next request on, without a restart. The server must stay the same: a connection
 * pool serves one server.
 */
export class KubeconfigFileAccess implements ClusterAccess {
  private version = '';

  private constructor(
    readonly path: string,
    private current: RestConfig,
  ) {}

  static async load(path: string): Promise<KubeconfigFileAccess> {
    const access = new KubeconfigFileAccess(path, await loadKubeconfigFile(path));
    access.version = await fileVersion(path);
    return access;
  }

  getCurrentCluster(): { readonly server: string; readonly proxyUrl?: string } {
    return this.current.getCurrentCluster();
  }

  /** The credentials as last read. */
  get restConfig(): RestConfig {
    return this.current;
  }

  async applyToHTTPSOptions(options: HttpsOptions): Promise<void> {
    const version = await fileVersion(this.path);
    if (version !== this.version) {
      const next = await loadKubeconfigFile(this.path);
      if (next.server !== this.current.server)
        throw new Error(`${this.path}: the server changed from ${this.current.server} to ${next.server}`);
      this.current = next;
      this.version = version;
    }
    await this.current.applyToHTTPSOptions(options);
  }
}

async function fileVersion(path: string): Promise<string> {
  const s = await stat(path);
  return `${s.ino}:${s.size}:${s.mtimeMs}`;
}
