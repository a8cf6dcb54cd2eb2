/**
 * The kubelet's bootstrap kubeconfig (gardener v1.91.4
 * cmd/gardener-node-agent/app/bootstrappers/kubelet_bootstrap_kubeconfig.go; runs on every start of
 * the agent): while the node has a bootstrap token and the kubelet has neither its real kubeconfig
 * nor a client certificate, `/var/lib/kubelet/kubeconfig-bootstrap` (0600) lets the kubelet request
 * one.
 */
import { readFile } from 'node:fs/promises';
import { type NodeAgentConfiguration, PATH, stringifyYaml } from '../../api/index.js';
import type { Logger } from '../../runtime/logging.js';
import { silentLogger } from '../../runtime/logging.js';
import { HostRoot, pathExists } from '../applier/host-root.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { ensureDir } from '../fs/ensure-dir.js';

export const KUBELET_BOOTSTRAP_NAME = 'kubelet-bootstrap';
export const KUBELET_BOOTSTRAP_KUBECONFIG_MODE = 0o600;
/**
 * What kubelet itself creates its root dir with (upstream's os.ModeDir gives 0000, gardener v1.91.4
 * pkg/nodeagent/bootstrap/bootstrap.go).
 */
export const KUBELET_DIR_MODE = 0o750;

export type KubeletBootstrapKubeconfigResult =
  | 'written'
  | 'no-bootstrap-token'
  | 'kubeconfig-exists'
  | 'client-certificate-exists';

/** `https://` + server unless it already starts with it (as upstream: `http://x` becomes `https://http://x`). */
function serverUrl(server: string): string {
  return server.startsWith('https://') ? server : `https://${server}`;
}

/**
 * The kubeconfig's bytes (N-TV-14): sigs.k8s.io/yaml's serialisation of clientcmd's v1 Config.
 * `caBundle` is the config's base64 text, written as `certificate-authority-data` as it is.
 */
export function kubeletBootstrapKubeconfig(
  server: string,
  caBundle: string | undefined,
  token: string,
): string {
  const name = KUBELET_BOOTSTRAP_NAME;
  return stringifyYaml({
    apiVersion: 'v1',
    clusters: [
      {
        cluster: { 'certificate-authority-data': caBundle || undefined, server: serverUrl(server) },
        name,
      },
    ],
    contexts: [{ context: { cluster: name, user: name }, name }],
    'current-context': name,
    kind: 'Config',
    preferences: {},
    users: [{ name, user: { token: token.trim() } }],
  });
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

export interface KubeletBootstrapKubeconfigOptions {
  readonly root: string;
  readonly config: Pick<NodeAgentConfiguration, 'apiServer'>;
  readonly logger?: Logger;
}

export async function writeKubeletBootstrapKubeconfig(
  options: KubeletBootstrapKubeconfigOptions,
): Promise<KubeletBootstrapKubeconfigResult> {
  const host = new HostRoot(options.root);
  const logger = options.logger ?? silentLogger;
  const tokenPath = host.path(PATH.nodeAgentBootstrapToken);
  await host.assertContained(tokenPath);
  const token = await readIfExists(tokenPath);
  if (token === undefined) {
    logger.info(
      { path: PATH.nodeAgentBootstrapToken },
      'No bootstrap token file found, skipping creation of kubelet bootstrap kubeconfig',
    );
    return 'no-bootstrap-token';
  }
  if (await pathExists(host.path(PATH.kubeletKubeconfig))) {
    logger.info(
      { path: PATH.kubeletKubeconfig },
      'Kubelet kubeconfig exists, no bootstrap kubeconfig needed',
    );
    return 'kubeconfig-exists';
  }
  if (await pathExists(host.path(PATH.kubeletClientCertificate))) {
    logger.info(
      { path: PATH.kubeletClientCertificate },
      'Kubelet client certificate exists, no bootstrap kubeconfig needed',
    );
    return 'client-certificate-exists';
  }
  const destination = host.path(PATH.kubeletBootstrapKubeconfig);
  await host.assertContained(destination);
  await ensureDir(host.path(PATH.kubeletDir), KUBELET_DIR_MODE);
  const { server, caBundle } = options.config.apiServer;
  await writeFileAtomic(
    destination,
    kubeletBootstrapKubeconfig(server ?? '', caBundle ?? undefined, token),
    KUBELET_BOOTSTRAP_KUBECONFIG_MODE,
  );
  logger.info({ path: PATH.kubeletBootstrapKubeconfig }, 'Kubelet bootstrap kubeconfig written');
  return 'written';
}
