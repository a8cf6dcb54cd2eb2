/**
 * The credentials of a pod's ServiceAccount, as client-go's rest.InClusterConfig (k8s.io/client-go
 * v0.29 rest/config.go): the API server from $KUBERNETES_SERVICE_HOST and $KUBERNETES_SERVICE_PORT,
 * the mounted CA, and the mounted token file, read again for every request because the kubelet
 * rotates it.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RestConfig } from './rest-config.js';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** undefined outside a pod (no service host/port in the environment, or no token mounted). */
export async function inClusterRestConfig(
  env: NodeJS.ProcessEnv,
  dir: string = SERVICE_ACCOUNT_DIR,
): Promise<RestConfig | undefined> {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) return undefined;
  const tokenFile = join(dir, 'token');
  const mounted = await stat(tokenFile).then(
    () => true,
    () => false,
  );
  if (!mounted) return undefined;
  // an IPv6 service address needs brackets in a URL (net.JoinHostPort in client-go)
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const ca = await readFile(join(dir, 'ca.crt')).catch((e: NodeJS.ErrnoException) => {
    throw new Error(
      `in-cluster config: cannot read the ServiceAccount CA ${join(dir, 'ca.crt')}: ${e.message}`,
    );
  });
  return new RestConfig({ server, ca, tokenFile });
}
