/**
 * What gardenlet leaves in a shoot's seed namespace for the controller-manager to read: the
 * `gardener-internal` kubeconfig of the shoot, and the secrets its secrets manager maintains (the
 * cluster CA bundle, the kubelet CA bundle, the SSH key pair), found by their labels as
 * seed/shoot-secrets/ reads them (gardener v1.91.4 pkg/utils/secrets/manager).
 */
import { LABEL } from '../../api/index.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { type CreatedObject, type CreateOptions, createObject } from './create-object.js';

export interface ShootNamespaceSecrets {
  /** The suffix the secrets manager gives the names (`ca-bundle-<suffix>`). */
  readonly suffix: string;
  /** The kubeconfig of `gardener-internal`: the controller-manager's access to the shoot. */
  readonly shootKubeconfig: string;
  readonly clusterCaPem: string;
  readonly kubeletCaPem: string;
  readonly sshPublicKey: string;
}

/** A stand-in certificate: a PEM block whose content the controllers only pass on. */
export const fakePem = (text: string) =>
  `-----BEGIN CERTIFICATE-----\n${Buffer.from(text).toString('base64')}\n-----END CERTIFICATE-----\n`;

const SECRETS_MANAGER = {
  [LABEL.secretsManagedBy]: 'secrets-manager',
  [LABEL.secretsManagerIdentity]: 'gardenlet',
};

export async function writeShootNamespaceSecrets(
  seed: KubeClient,
  namespace: string,
  s: ShootNamespaceSecrets,
  options: CreateOptions = {},
): Promise<CreatedObject[]> {
  const secret = (name: string, labels: Record<string, string>, data: Record<string, string>) =>
    createObject(
      seed,
      RESOURCE.secret,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace, labels },
        data: Object.fromEntries(
          Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
        ),
      },
      options,
    );
  return [
    await secret('gardener-internal', {}, { kubeconfig: s.shootKubeconfig }),
    await secret(
      `ca-bundle-${s.suffix}`,
      { ...SECRETS_MANAGER, [LABEL.secretsBundleFor]: 'ca' },
      { 'bundle.crt': s.clusterCaPem },
    ),
    await secret(
      `ca-kubelet-bundle-${s.suffix}`,
      { ...SECRETS_MANAGER, [LABEL.secretsBundleFor]: 'ca-kubelet' },
      { 'bundle.crt': s.kubeletCaPem },
    ),
    await secret(
      `ssh-keypair-${s.suffix}`,
      { ...SECRETS_MANAGER, [LABEL.secretsName]: 'ssh-keypair' },
      { id_rsa: 'private', 'id_rsa.pub': s.sshPublicKey },
    ),
  ];
}
