/**
 * The render values of one shoot from its seed namespace: the secrets manager's CA bundles and
 * SSH key pairs (listed by label, so the controller never reads other secrets) plus the
 * controller-manager's images, node-logging setting, node agent identity mode and registry CA.
 */
import type { V1Secret } from '@kubernetes/client-node';
import type { Cluster } from '../../api/index.js';
import type { RenderValues } from '../../charts/values/render-values.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { renderValuesFromSeed, SECRETS_MANAGER_SELECTOR } from '../shoot-secrets/index.js';
import type { ControllerManagerConfiguration } from './config.js';

export class SeedSecretsError extends Error {
  constructor(namespace: string, reasons: readonly string[]) {
    super(`cannot render the node configuration of ${namespace}: ${reasons.join('; ')}`);
    this.name = 'SeedSecretsError';
  }
}

export interface SeedValues {
  readonly values: RenderValues;
  /** A CA is being rotated (more than one bundle secret): reconcile again soon. */
  readonly rotating: boolean;
}

export async function seedRenderValues(
  seed: Pick<KubeClient, 'list'>,
  namespace: string,
  cluster: Cluster,
  config: ControllerManagerConfiguration,
): Promise<SeedValues> {
  const secrets = await seed.list<V1Secret>(RESOURCE.secret, {
    namespace,
    labelSelector: SECRETS_MANAGER_SELECTOR,
  });
  const result = renderValuesFromSeed({
    secrets,
    sshAccessEnabled: cluster.shoot.spec.provider.workersSettings?.sshAccess?.enabled ?? true,
    images: config.images,
    nodeLogging: config.nodeLogging,
  });
  if (!result.ok) throw new SeedSecretsError(namespace, result.reasons);
  return {
    values: {
      ...result.values,
      nodeAgentIdentity: config.nodeAgent.identity,
      ...(config.registryCaBundle === undefined ? {} : { registryCaBundle: config.registryCaBundle }),
    },
    rotating: result.rotating,
  };
}
