/**
 * Credentials for a shoot's API server, the way extensions reach a shoot (gardener's
 * `extensions/pkg/util.NewClientForShoot`): the kubeconfig under data key `kubeconfig` of the seed
 * secret `gardener-internal` in the shoot namespace (in-cluster API server address), or of
 * `gardener` (external address) only when `gardener-internal` does not exist. As upstream, an
 * existing but unusable `gardener-internal` is an error, not a reason to fall back.
 *
 * What Gardener writes there: up to ~v1.4x a client certificate (`client-certificate-data`,
 * `client-key-data`) signed by the cluster CA; since then a shoot access secret whose kubeconfig
 * has one cluster/user/context named after the namespace and an inline `token` that
 * gardener-resource-manager's TokenRequestor fills in and renews (empty until it has done so).
 * Neither version references a token file (only `generic-token-kubeconfig`, which extensions mount
 * into pods, does). Both inline forms are supported; an empty token is reported as not populated
 * yet (transient: retry). Credentials this process cannot or must not use are rejected with an
 * error naming the field: files (`tokenFile`, `client-certificate`, `client-key`,
 * `certificate-authority` — paths of another machine; @kubernetes/client-node would even read
 * `token-file` from this process's disk while parsing), `exec` and `auth-provider` (a secret must
 * not make this process run commands). Only the current context is read; the result is a
 * `RestConfig` (runtime/kube), which KubeHttp uses per request.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { DATA_KEY, NAME } from '../../api/well-known/names.js';
import { parseYaml } from '../../api/yaml/codec.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { RestConfig } from '../../runtime/kube/rest-config.js';
import { isBase64, secretRef, secretText } from './secret-data.js';

export class ShootKubeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShootKubeConfigError';
  }
}

/** What loadShootRestConfig needs of the seed's API client. */
export type SecretReader = Pick<KubeClient, 'getIfExists'>;

type YamlMap = Record<string, unknown>;

function isMap(value: unknown): value is YamlMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(map: YamlMap, key: string): unknown {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

/** A present, non-empty field (null and "" count as absent, as in Go's omitempty). */
function present(map: YamlMap, key: string): boolean {
  const value = field(map, key);
  return value !== undefined && value !== null && value !== '';
}

function stringField(
  map: YamlMap,
  key: string,
  where: string,
  fail: (m: string) => never,
): string | undefined {
  const value = field(map, key);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') fail(`${where}.${key} is not a string`);
  return value === '' ? undefined : value;
}

/** The body (`cluster`, `user` or `context`) of the entry called `name` in the list `doc[listKey]`. */
function named(
  doc: YamlMap,
  listKey: 'clusters' | 'users' | 'contexts',
  bodyKey: 'cluster' | 'user' | 'context',
  name: string,
  fail: (m: string) => never,
): YamlMap {
  const list = field(doc, listKey) ?? [];
  if (!Array.isArray(list)) return fail(`kubeconfig ${listKey} is not a list`);
  const entry = list.find((item): item is YamlMap => isMap(item) && field(item, 'name') === name);
  if (!entry) return fail(`kubeconfig ${listKey} has no entry named "${name}"`);
  const body = field(entry, bodyKey);
  return isMap(body) ? body : {};
}

/** The credentials of the current context of the kubeconfig in one secret's `kubeconfig` key. */
function restConfigFromSecret(secret: V1Secret): RestConfig {
  const ref = secretRef(secret);
  const fail = (message: string): never => {
    throw new ShootKubeConfigError(`secret ${ref}: ${message}`);
  };
  const text = secretText(secret, DATA_KEY.kubeconfig);
  if (!text.ok) throw new ShootKubeConfigError(text.reason);

  let doc: unknown;
  try {
    doc = parseYaml(text.text);
  } catch (error) {
    return fail(`data key ${DATA_KEY.kubeconfig} is not valid YAML: ${(error as Error).message}`);
  }
  if (!isMap(doc)) return fail(`data key ${DATA_KEY.kubeconfig} is not a kubeconfig (not a YAML mapping)`);

  const contextName = stringField(doc, 'current-context', 'kubeconfig', fail);
  if (!contextName) return fail('kubeconfig has no current context (current-context is empty)');
  const context = named(doc, 'contexts', 'context', contextName, fail);
  const clusterName = stringField(context, 'cluster', `context "${contextName}"`, fail);
  const userName = stringField(context, 'user', `context "${contextName}"`, fail);
  if (!clusterName) return fail(`current context "${contextName}" names no cluster`);
  if (!userName) return fail(`current context "${contextName}" names no user`);
  const cluster = named(doc, 'clusters', 'cluster', clusterName, fail);
  const user = named(doc, 'users', 'user', userName, fail);

  const clusterWhere = `cluster "${clusterName}"`;
  const server = stringField(cluster, 'server', clusterWhere, fail);
  if (!server) return fail(`${clusterWhere} has no server`);
  if (present(cluster, 'certificate-authority')) {
    fail(`${clusterWhere} reads its CA from a file (certificate-authority), which is not supported here`);
  }
  const caData = stringField(cluster, 'certificate-authority-data', clusterWhere, fail);
  if (caData !== undefined && !isBase64(caData)) {
    fail(`${clusterWhere}.certificate-authority-data is not valid base64`);
  }

  const userWhere = `user "${userName}"`;
  for (const key of ['tokenFile', 'token-file']) {
    if (present(user, key)) {
      fail(
        `${userWhere} reads its token from a file (${key}: ${String(field(user, key))}), which is not ` +
          `supported here; gardener's ${NAME.shootInternalAccessSecret}/${NAME.shootAccessSecret} ` +
          'secrets carry an inline token',
      );
    }
  }
  for (const key of ['client-certificate', 'client-key']) {
    if (present(user, key)) fail(`${userWhere} reads ${key} from a file, which is not supported here`);
  }
  for (const key of ['exec', 'auth-provider']) {
    if (present(user, key)) fail(`${userWhere} uses ${key}, which is not supported for shoot access`);
  }

  const token = stringField(user, 'token', userWhere, fail);
  const certData = stringField(user, 'client-certificate-data', userWhere, fail);
  const keyData = stringField(user, 'client-key-data', userWhere, fail);
  if (!token) {
    if (certData === undefined && keyData === undefined) {
      fail(
        `${userWhere} has no credentials yet: its token is empty and it has no client certificate ` +
          "(gardener-resource-manager's TokenRequestor has not populated the token yet)",
      );
    }
    if (certData === undefined || keyData === undefined) {
      fail(`${userWhere} has only one of client-certificate-data and client-key-data`);
    }
  }
  for (const [key, value] of [
    ['client-certificate-data', certData],
    ['client-key-data', keyData],
  ] as const) {
    if (value !== undefined && !isBase64(value)) fail(`${userWhere}.${key} is not valid base64`);
  }

  const skipTLSVerify = field(cluster, 'insecure-skip-tls-verify') === true;
  const tlsServerName = stringField(cluster, 'tls-server-name', clusterWhere, fail);
  const proxyUrl = stringField(cluster, 'proxy-url', clusterWhere, fail);

  return new RestConfig({
    server,
    ...(caData !== undefined && { ca: Buffer.from(caData, 'base64') }),
    insecureSkipTlsVerify: skipTLSVerify,
    ...(tlsServerName !== undefined && { tlsServerName }),
    ...(proxyUrl !== undefined && { proxyUrl }),
    ...(token
      ? { token }
      : { clientCertificate: Buffer.from(certData!, 'base64'), clientKey: Buffer.from(keyData!, 'base64') }),
  });
}

/**
 * The shoot's credentials from the seed secrets `gardener-internal` (preferred) and `gardener`;
 * `namespace` only makes the error clearer when both are missing. Throws ShootKubeConfigError.
 */
export function shootRestConfigFromSecrets(
  internal?: V1Secret,
  external?: V1Secret,
  namespace?: string,
): RestConfig {
  const secret = internal ?? external;
  if (!secret) {
    const prefix = namespace ? `${namespace}/` : '';
    throw new ShootKubeConfigError(
      `neither secret ${prefix}${NAME.shootInternalAccessSecret} nor ${prefix}${NAME.shootAccessSecret} ` +
        'exists: no credentials for the shoot',
    );
  }
  return restConfigFromSecret(secret);
}

/**
 * Reads `gardener-internal` and, only when it does not exist, `gardener` from the shoot namespace
 * in the seed, then builds the credentials. A missing secret is tolerated; any other API error is
 * rethrown.
 */
export async function loadShootRestConfig(seed: SecretReader, namespace: string): Promise<RestConfig> {
  const read = (name: string) => seed.getIfExists<V1Secret>(RESOURCE.secret, { name, namespace });
  const internal = await read(NAME.shootInternalAccessSecret);
  const external = internal ? undefined : await read(NAME.shootAccessSecret);
  return shootRestConfigFromSecrets(internal, external, namespace);
}
