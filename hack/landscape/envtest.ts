/**
 * A real kube-apiserver and etcd per named environment (`seed`, `shoot`), built from their Go
 * modules by hack/envtest and started on free ports, like controller-runtime's envtest. Each
 * server runs under hack/envtest's supervisor, which kills it when this process dies (even by
 * SIGKILL); pids are also recorded and reaped by the next run. With TEST_KUBECONFIG (and
 * optionally TEST_SHOOT_KUBECONFIG) the suite runs against existing clusters instead.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ApiException, CoreV1Api, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { Agent, request } from 'undici';
import { parseYaml, stringifyYaml } from '../../api/yaml/codec.js';
import {
  authorizerWebhookKubeconfig,
  nodeAgentAuthorizationConfiguration,
} from '../../charts/controller-manager/authorization-config.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { projectCacheDir, requireGo } from '../prepare/go-binary.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CRD_DIR = join(ROOT, 'hack/crds');

export interface Envtest {
  readonly name: string;
  /** True when running against a cluster given by TEST_KUBECONFIG / TEST_SHOOT_KUBECONFIG. */
  readonly existing: boolean;
  readonly server: string;
  /** Admin credentials (system:masters). */
  readonly kubeConfig: KubeConfig;
  /** The admin kubeconfig as a file, for child processes. */
  readonly kubeconfigFile: string;
  /** The audit log (level Metadata), one JSON object a line; undefined for existing clusters. */
  readonly auditLogPath: string | undefined;
  /**
   * The CA the API server trusts for client certificates (what a kube-controller-manager signs
   * kube-apiserver-client certificates with); undefined for existing clusters.
   */
  readonly clientCa: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly version: { gitVersion: string };
  kubeConfigForServiceAccount(
    namespace: string,
    name: string,
    expirationSeconds?: number,
  ): Promise<KubeConfig>;
  kubeConfigForUser(user: string, groups?: readonly string[]): Promise<KubeConfig>;
  stop(): Promise<void>;
}

function kubeConfigOf(options: {
  name: string;
  server: string;
  caData?: string;
  token?: string;
  certData?: string;
  keyData?: string;
}): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: options.name, server: options.server, caData: options.caData, skipTLSVerify: false }],
    users: [
      { name: options.name, token: options.token, certData: options.certData, keyData: options.keyData },
    ],
    contexts: [{ name: options.name, cluster: options.name, user: options.name }],
    currentContext: options.name,
  });
  return kc;
}

/** Builds (once, cached outside the clone) and returns the directory with kube-apiserver, etcd, supervisor. */
let binariesDir: string | undefined;
export function envtestBinaries(): string {
  if (binariesDir) return binariesDir;
  requireGo();
  const out = execFileSync('bash', [join(ROOT, 'hack/envtest/build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  binariesDir = out.trim().split('\n').at(-1)!;
  return binariesDir;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(
  what: string,
  timeoutMs: number,
  probe: () => Promise<boolean>,
  logFile?: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await sleep(100);
  }
  const tail =
    logFile && existsSync(logFile)
      ? `\n--- ${logFile} (tail) ---\n${readFileSync(logFile, 'utf8').slice(-3000)}`
      : '';
  throw new Error(`${what} did not become ready within ${timeoutMs} ms${tail}`);
}

const insecure = new Agent({ connect: { rejectUnauthorized: false } });

async function httpOk(url: string, token?: string): Promise<boolean> {
  const res = await request(url, {
    dispatcher: insecure,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    headersTimeout: 2000,
  });
  await res.body.dump();
  return res.statusCode === 200;
}

function openssl(cwd: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Records our servers so a later run can reap them if this process vanished without cleanup. */
const RUNS_DIR = projectCacheDir('envtest', 'runs');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function reapStaleRuns(): void {
  if (!existsSync(RUNS_DIR)) return;
  for (const file of readdirSync(RUNS_DIR)) {
    const path = join(RUNS_DIR, file);
    try {
      const { owner, pids } = JSON.parse(readFileSync(path, 'utf8')) as { owner: number; pids: number[] };
      if (alive(owner)) continue;
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
      unlinkSync(path);
    } catch {
      rmSync(path, { force: true });
    }
  }
}

class Supervised {
  readonly exited: Promise<number | null>;
  constructor(readonly child: ChildProcess) {
    this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
  }
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timeout = sleep(10_000).then(() => 'timeout' as const);
    if ((await Promise.race([this.exited, timeout])) === 'timeout') this.child.kill('SIGKILL');
    await this.exited;
  }
}

function supervise(bin: string, args: string[], logFile: string): Supervised {
  const log = openSync(logFile, 'a');
  const child = spawn(join(bin, 'supervisor'), ['--grace=5s', '--', ...args], {
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  return new Supervised(child);
}

const AUDIT_POLICY = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n';

async function installCrds(kc: KubeConfig): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(kc);
  // raw JSON: client-node's typed CRD model would drop `x-kubernetes-preserve-unknown-fields`
  const http = new KubeHttp(kc);
  const client = new KubeClient(http, { fieldManager: 'envtest' });
  const crds = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
  };
  const names: string[] = [];
  try {
    for (const file of readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml'))) {
      const crd = parseYaml(readFileSync(join(CRD_DIR, file), 'utf8')) as { metadata: { name: string } };
      names.push(crd.metadata.name);
      await client.apply(crds, crd, { force: true });
    }
  } finally {
    await http.close();
  }
  await waitFor('CRDs to be established', 30_000, async () => {
    for (const name of names) {
      const crd = (await api.read({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name },
      } as never)) as {
        status?: { conditions?: { type: string; status: string }[] };
      };
      if (!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return false;
    }
    return true;
  });
}

async function ensureServiceAccount(core: CoreV1Api, namespace: string, name: string): Promise<void> {
  for (const create of [
    () => core.createNamespace({ body: { metadata: { name: namespace } } }),
    () => core.createNamespacedServiceAccount({ namespace, body: { metadata: { name, namespace } } }),
  ]) {
    try {
      await create();
    } catch (e) {
      if (!(e instanceof ApiException && e.code === 409)) throw e;
    }
  }
}

async function serviceAccountKubeConfig(
  admin: KubeConfig,
  name: string,
  namespace: string,
  sa: string,
  expirationSeconds: number,
) {
  const core = admin.makeApiClient(CoreV1Api);
  await ensureServiceAccount(core, namespace, sa);
  const tr = await core.createNamespacedServiceAccountToken({
    name: sa,
    namespace,
    body: { spec: { audiences: [], expirationSeconds } },
  });
  const cluster = admin.getCurrentCluster()!;
  return kubeConfigOf({
    name: `${name}-${namespace}-${sa}`,
    server: cluster.server,
    caData: cluster.caData,
    token: tr.status?.token,
  });
}

async function startLocal(name: string, options: EnvtestOptions): Promise<Envtest> {
  const bin = envtestBinaries();
  reapStaleRuns();
  const dir = mkdtempSync(join(tmpdir(), `envtest-${name}-`));
  openssl(dir, 'genrsa', '-out', 'sa.key', '2048');
  openssl(dir, 'rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub');
  openssl(
    dir,
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'client-ca.key',
    '-out',
    'client-ca.crt',
    '-days',
    '2',
    '-subj',
    `/CN=envtest-${name}-client-ca`,
  );
  const token = randomBytes(24).toString('hex');
  writeFileSync(join(dir, 'tokens.csv'), `${token},envtest-admin,envtest-admin,"system:masters"\n`);
  writeFileSync(join(dir, 'audit-policy.yaml'), AUDIT_POLICY);
  const authorization = authorizationFlags(dir, options);
  const [etcdPort, apiPort] = [await freePort(), await freePort()];
  const etcd = supervise(
    bin,
    [
      join(bin, 'etcd'),
      '--name=envtest',
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
      '--listen-peer-urls=http://127.0.0.1:0',
      '--unsafe-no-fsync',
      '--log-level=warn',
    ],
    join(dir, 'etcd.log'),
  );
  const auditLogPath = join(dir, 'audit.log');
  const apiserver = supervise(
    bin,
    [
      join(bin, 'kube-apiserver'),
      `--etcd-servers=http://127.0.0.1:${etcdPort}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--cert-dir=${join(dir, 'certs')}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${join(dir, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      `--client-ca-file=${join(dir, 'client-ca.crt')}`,
      ...authorization,
      '--enable-bootstrap-token-auth',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--disable-admission-plugins=ServiceAccount',
      '--endpoint-reconciler-type=none',
      `--audit-log-path=${auditLogPath}`,
      `--audit-policy-file=${join(dir, 'audit-policy.yaml')}`,
      // short compaction, so tests can provoke "410 Gone" on old resourceVersions
      '--etcd-compaction-interval=5s',
      ...(options.watchCache === false ? ['--watch-cache=false'] : []),
      ...(options.admissionPlugins?.length
        ? [`--enable-admission-plugins=${options.admissionPlugins.join(',')}`]
        : []),
    ],
    join(dir, 'kube-apiserver.log'),
  );
  mkdirSync(RUNS_DIR, { recursive: true });
  const runFile = join(RUNS_DIR, `${process.pid}-${name}.json`);
  writeFileSync(runFile, JSON.stringify({ owner: process.pid, pids: [etcd.child.pid, apiserver.child.pid] }));
  const stop = async () => {
    await apiserver.stop();
    await etcd.stop();
    rmSync(runFile, { force: true });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor('etcd', 30_000, () => httpOk(`http://127.0.0.1:${etcdPort}/health`), join(dir, 'etcd.log'));
    const server = `https://127.0.0.1:${apiPort}`;
    await waitFor(
      'kube-apiserver',
      90_000,
      () => httpOk(`${server}/readyz`, token),
      join(dir, 'kube-apiserver.log'),
    );
    const caData = readFileSync(join(dir, 'certs', 'apiserver.crt')).toString('base64');
    const kubeConfig = kubeConfigOf({ name, server, caData, token });
    const kubeconfigFile = join(dir, 'admin.kubeconfig');
    writeFileSync(kubeconfigFile, kubeConfig.exportConfig());
    const version = (await (await request(`${server}/version`, { dispatcher: insecure })).body.json()) as {
      gitVersion: string;
    };
    await installCrds(kubeConfig);
    return {
      name,
      existing: false,
      server,
      kubeConfig,
      kubeconfigFile,
      auditLogPath,
      clientCa: { certFile: join(dir, 'client-ca.crt'), keyFile: join(dir, 'client-ca.key') },
      version,
      kubeConfigForServiceAccount: (namespace, sa, expirationSeconds = 3600) =>
        serviceAccountKubeConfig(kubeConfig, name, namespace, sa, expirationSeconds),
      kubeConfigForUser: async (user, groups = []) => {
        const base = join(dir, `user-${randomBytes(4).toString('hex')}`);
        const subject = `/CN=${user}${groups.map((g) => `/O=${g}`).join('')}`;
        openssl(
          dir,
          'req',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          `${base}.key`,
          '-out',
          `${base}.csr`,
          '-subj',
          subject,
        );
        openssl(
          dir,
          'x509',
          '-req',
          '-in',
          `${base}.csr`,
          '-CA',
          'client-ca.crt',
          '-CAkey',
          'client-ca.key',
          '-CAcreateserial',
          '-out',
          `${base}.crt`,
          '-days',
          '1',
        );
        return kubeConfigOf({
          name: `${name}-${user}`,
          server,
          caData,
          certData: readFileSync(`${base}.crt`).toString('base64'),
          keyData: readFileSync(`${base}.key`).toString('base64'),
        });
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Free ports are picked by binding port 0 and releasing it, which can race: retry those starts. */
async function startLocalWithRetry(name: string, options: EnvtestOptions): Promise<Envtest> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startLocal(name, options);
    } catch (error) {
      if (attempt >= 3 || !/address already in use/.test((error as Error).message)) throw error;
    }
  }
}

async function startExisting(name: string, file: string): Promise<Envtest> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(file);
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error(`${file}: no current cluster`);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await core.listNamespace({ limit: 1 });
  const http = await request(`${cluster.server}/version`, { dispatcher: insecure });
  const version = (await http.body.json()) as { gitVersion: string };
  return {
    name,
    existing: true,
    server: cluster.server,
    kubeConfig,
    kubeconfigFile: file,
    auditLogPath: undefined,
    clientCa: undefined,
    version,
    kubeConfigForServiceAccount: (namespace, sa, expirationSeconds = 3600) =>
      serviceAccountKubeConfig(kubeConfig, name, namespace, sa, expirationSeconds),
    kubeConfigForUser: async (user, groups = []) => {
      // identities on existing clusters come from impersonation, never from signed certificates
      const kc = new KubeConfig();
      kc.loadFromString(kubeConfig.exportConfig());
      kc.addAuthenticator({
        isAuthProvider: () => true,
        applyAuthentication: async (_user, opts) => {
          opts.headers = {
            ...opts.headers,
            'Impersonate-User': user,
            ...(groups[0] ? { 'Impersonate-Group': groups[0] } : {}),
          };
        },
      });
      if (groups.length > 1) throw new Error('impersonation in this harness supports one group');
      return kc;
    },
    stop: async () => undefined,
  };
}

const running = new Map<string, Promise<Envtest>>();

export interface EnvtestOptions {
  readonly name: 'seed' | 'shoot' | string;
  /**
   * false serves watches straight from etcd, so a compacted resourceVersion gets a real 410
   * (with the watch cache, old resourceVersions are served from the cache's window).
   */
  readonly watchCache?: boolean;
  /**
   * Authorizes with a structured authorization configuration (`--authorization-config`): the
   * Node authorizer, this node agent authorizer webhook (for node agent users only, failing
   * closed), then RBAC, exactly as a shoot's kube-apiserver is configured for per-node identities
   * (charts/controller-manager/authorization-config.ts). Default: `--authorization-mode=Node,RBAC`.
   */
  readonly nodeAgentAuthorizer?: {
    /** The shoot's endpoint, `https://host:port/webhooks/auth/nodeagent/<shoot namespace>`. */
    readonly url: string;
    /** The CA of the endpoint's serving certificate. */
    readonly caPem: string;
    /** The shoot's bearer token (charts/controller-manager/authorizer-caller-token.ts). */
    readonly token: string;
    readonly authorizedTTL?: string;
    readonly unauthorizedTTL?: string;
  };
  /** `--enable-admission-plugins` besides the defaults, e.g. NodeRestriction. */
  readonly admissionPlugins?: readonly string[];
}

/** The authorization flags and, for a node agent authorizer, the files they name. */
function authorizationFlags(dir: string, options: EnvtestOptions): string[] {
  const authorizer = options.nodeAgentAuthorizer;
  if (!authorizer) return ['--authorization-mode=Node,RBAC'];
  const kubeconfig = join(dir, 'node-agent-authorizer.kubeconfig');
  writeFileSync(kubeconfig, stringifyYaml(authorizerWebhookKubeconfig(authorizer)));
  const config = join(dir, 'authorization-config.yaml');
  writeFileSync(
    config,
    stringifyYaml(
      nodeAgentAuthorizationConfiguration({
        webhookKubeconfigPath: kubeconfig,
        authorizedTTL: authorizer.authorizedTTL,
        unauthorizedTTL: authorizer.unauthorizedTTL,
      }),
    ),
  );
  return [`--authorization-config=${config}`];
}

/** The environment of this name, started on first use and shared by every suite of the run. */
export function startEnvtest(options: EnvtestOptions): Promise<Envtest> {
  const { name } = options;
  let env = running.get(name);
  if (!env) {
    const existing =
      name === 'shoot'
        ? (process.env.TEST_SHOOT_KUBECONFIG ?? process.env.TEST_KUBECONFIG)
        : process.env.TEST_KUBECONFIG;
    env = existing ? startExisting(name, existing) : startLocalWithRetry(name, options);
    running.set(name, env);
    void env.then(
      (e) =>
        process.stderr.write(
          `envtest ${name}: ${e.existing ? 'existing cluster' : 'kube-apiserver'} ${e.version.gitVersion} at ${e.server}\n`,
        ),
      () => running.delete(name),
    );
  }
  return env;
}

export async function stopAllEnvtests(): Promise<void> {
  const envs = [...running.values()];
  running.clear();
  await Promise.all(envs.map(async (e) => (await e.catch(() => undefined))?.stop()));
}

/** Suites that write kube-system, Nodes or CRDs call this: on an existing cluster they need consent. */
export function requireClusterScopedWrites(env: Envtest): void {
  if (env.existing && process.env.TEST_ALLOW_CLUSTER_SCOPED !== '1') {
    throw new Error(
      `this suite writes cluster-scoped objects (kube-system, Nodes or CRDs) into ${env.server}; ` +
        'set TEST_ALLOW_CLUSTER_SCOPED=1 to allow that on an existing cluster',
    );
  }
}

/** A fresh namespace per suite (no garbage collector runs: tests delete what they create). */
export async function createTestNamespace(env: Envtest, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await env.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
}

/** Audit events of the environment (level Metadata), for counting requests per user. */
export function readAuditEvents(
  env: Envtest,
): { user: { username: string }; verb: string; requestURI: string; stage: string }[] {
  if (!env.auditLogPath || !existsSync(env.auditLogPath)) return [];
  return readFileSync(env.auditLogPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}
