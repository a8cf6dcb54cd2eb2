/**
 * The one way a command finds its cluster, in controller-runtime's order (sigs.k8s.io/
 * controller-runtime v0.17 pkg/client/config/config.go, loadConfig): the kubeconfig it was given
 * (a flag or a configuration field), else $KUBECONFIG, else the in-cluster ServiceAccount, else
 * ~/.kube/config. Every kubeconfig goes through kubeconfig-file.ts, so each command accepts the
 * same credentials (token, token file, client certificate, basic auth, `exec` plugins).
 */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { inClusterRestConfig, SERVICE_ACCOUNT_DIR } from './in-cluster.js';
import { loadKubeconfigFile } from './kubeconfig-file.js';
import type { RestConfig } from './rest-config.js';

export interface LoadRestConfigOptions {
  /** An explicit kubeconfig file; wins over everything else. */
  readonly kubeconfig?: string;
  readonly env: NodeJS.ProcessEnv;
  /** Where the ServiceAccount is mounted (tests); default SERVICE_ACCOUNT_DIR. */
  readonly serviceAccountDir?: string;
  /** The home directory whose .kube/config is the last resort; default $HOME of `env`. */
  readonly home?: string;
}

export class NoClusterConfigError extends Error {
  constructor() {
    super(
      'no kubeconfig: give one (--kubeconfig or the configuration), set $KUBECONFIG, run in a pod with a ServiceAccount, or write ~/.kube/config',
    );
    this.name = 'NoClusterConfigError';
  }
}

export async function loadRestConfig(o: LoadRestConfigOptions): Promise<RestConfig> {
  if (o.kubeconfig) return loadKubeconfigFile(o.kubeconfig);
  const fromEnv = o.env.KUBECONFIG;
  if (fromEnv) {
    const paths = fromEnv.split(delimiter).filter(Boolean);
    if (paths.length > 1)
      throw new Error(
        `$KUBECONFIG names ${paths.length} files: merging kubeconfigs is not supported, name one`,
      );
    if (paths[0]) return loadKubeconfigFile(paths[0]);
  }
  const inCluster = await inClusterRestConfig(o.env, o.serviceAccountDir ?? SERVICE_ACCOUNT_DIR);
  if (inCluster) return inCluster;
  const home = o.home ?? o.env.HOME;
  const fallback = home && join(home, '.kube', 'config');
  if (fallback && existsSync(fallback)) return loadKubeconfigFile(fallback);
  throw new NoClusterConfigError();
}
