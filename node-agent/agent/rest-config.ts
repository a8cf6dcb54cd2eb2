/**
 * The agent's API credentials (gardener v1.91.4 cmd/gardener-node-agent/app/app.go): a kubeconfig
 * when configured (or `$KUBECONFIG`); otherwise the API server and CA of the config with the
 * agent's own token file, which the client re-reads so rotations need no restart. Without that file
 * yet, the legacy downloader's token (migration) or the machine's bootstrap token fetches the
 * agent's own token first.
 */
import { stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { V1Node, V1Secret } from '@kubernetes/client-node';
import {
  DATA_KEY,
  type GardenerVersion,
  NAME,
  NAMESPACE_KUBE_SYSTEM,
  type NodeAgentConfiguration,
  PATH,
} from '../../api/index.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { KubeconfigFileAccess, loadKubeconfigFile } from '../../runtime/kube/kubeconfig-file.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { type ClusterAccess, RestConfig } from '../../runtime/kube/rest-config.js';
import type { Logger } from '../../runtime/logging.js';
import { HostRoot } from '../applier/host-root.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { obtainNodeIdentity } from '../identity/obtain-identity.js';

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

function tokenFileConfig(server: string, caBundle: string | null | undefined, tokenFile: string): RestConfig {
  return new RestConfig({ server, ca: caBundle ? Buffer.from(caBundle, 'base64') : undefined, tokenFile });
}

export async function restConfig(
  config: NodeAgentConfiguration,
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<RestConfig> {
  const kubeconfig = env.KUBECONFIG || config.clientConnection.kubeconfig;
  if (kubeconfig) return loadKubeconfigFile(kubeconfig);
  const server = config.apiServer.server;
  if (!server) throw new Error('apiServer.server is empty and no kubeconfig is configured');
  const host = new HostRoot(root);
  const tokenFile = host.path(PATH.nodeAgentToken);
  if (await exists(tokenFile)) return tokenFileConfig(server, config.apiServer.caBundle, tokenFile);
  const borrowed = [host.path(PATH.downloaderToken), host.path(PATH.nodeAgentBootstrapToken)];
  let source: string | undefined;
  for (const candidate of borrowed) {
    if (await exists(candidate)) {
      source = candidate;
      break;
    }
  }
  if (!source) {
    throw new Error(
      `unable to construct REST config (neither token file ${PATH.nodeAgentToken} nor bootstrap token file ${PATH.nodeAgentBootstrapToken} exist)`,
    );
  }
  const http = new KubeHttp(tokenFileConfig(server, config.apiServer.caBundle, source));
  try {
    const secret = await new KubeClient(http).get<V1Secret>(RESOURCE.secret, {
      name: NAME.nodeAgent,
      namespace: NAMESPACE_KUBE_SYSTEM,
    });
    const token = secret.data?.[DATA_KEY.token];
    if (!token) throw new Error(`secret key "token" does not exist or empty`);
    await writeFileAtomic(tokenFile, Buffer.from(token, 'base64'), 0o600);
  } finally {
    await http.close();
  }
  return tokenFileConfig(server, config.apiServer.caBundle, tokenFile);
}

/**
 * Whether the agent runs with its per-node identity, which it obtains itself on first start: its
 * configuration names its own identity kubeconfig (`credentials/kubeconfig`), or it follows the
 * v1.150 contract and names no kubeconfig (gardenlet v1.150.0 renders none: its agent has only
 * per-node identities since v1.109.0, gardener v1.150.0 cmd/gardener-node-agent/app/app.go);
 * `$KUBECONFIG` always wins, as for any kubeconfig.
 */
export function usesNodeIdentity(
  config: NodeAgentConfiguration,
  env: NodeJS.ProcessEnv,
  contract: GardenerVersion = 'v1.91.4',
): boolean {
  if (env.KUBECONFIG) return false;
  const kubeconfig = config.clientConnection.kubeconfig;
  return kubeconfig === PATH.nodeAgentKubeconfig || (contract === 'v1.150.0' && !kubeconfig);
}

export interface AgentCredentialsOptions {
  readonly config: NodeAgentConfiguration;
  readonly root: string;
  readonly env: NodeJS.ProcessEnv;
  /** The node the identity names (asked only when the identity must be obtained). */
  readonly identityNodeName: () => Promise<string>;
  /** The contract of the configuration (default v1.91.4). */
  readonly contract?: GardenerVersion;
  readonly log: Logger;
  readonly signal?: AbortSignal;
}

/**
 * The agent's credentials: with a per-node identity, its kubeconfig under the root (obtained first
 * when missing), re-read whenever the certificate controller renews it; otherwise `restConfig`.
 */
export async function agentCredentials(o: AgentCredentialsOptions): Promise<ClusterAccess> {
  if (!usesNodeIdentity(o.config, o.env, o.contract)) return restConfig(o.config, o.root, o.env);
  const file = new HostRoot(o.root).path(PATH.nodeAgentKubeconfig);
  if (!(await exists(file)))
    await obtainNodeIdentity({
      config: o.config,
      root: o.root,
      nodeName: await o.identityNodeName(),
      log: o.log,
      signal: o.signal,
    });
  return KubeconfigFileAccess.load(file);
}

/** Lower-cased kernel hostname (gardener v1.91.4 pkg/nodeagent/hostname.go). */
export function hostName(override: string | undefined): string {
  return (override || hostname()).toLowerCase();
}

/** The node with label kubernetes.io/hostname=<hostName>; undefined before kubelet registered it. */
export async function nodeNameByHostName(
  client: Pick<KubeClient, 'list'>,
  host: string,
): Promise<string | undefined> {
  const nodes = await client.list<V1Node>(RESOURCE.node, { labelSelector: `kubernetes.io/hostname=${host}` });
  if (nodes.length > 1) throw new Error(`found more than one node with label kubernetes.io/hostname=${host}`);
  return nodes[0]?.metadata?.name;
}
