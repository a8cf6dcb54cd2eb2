/**
 * Who the controller-manager is in a landscape, never admin: in the seed a ServiceAccount bound to
 * exactly its chart's ClusterRole, in the shoot the ServiceAccount(s) behind `gardener-internal`
 * bound to the documented minimum shoot role of the apply mode (charts/controller-manager,
 * docs/security.md).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  CONTROLLER_MANAGER_NAME,
  clusterRoleBinding,
  seedClusterRole,
  shootClusterRole,
} from '../../charts/controller-manager/controller-manager.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { type CreatedObject, type CreateOptions, createObject } from './create-object.js';
import type { Envtest } from './envtest.js';

export interface Identity {
  readonly kubeConfig: KubeConfig;
  /** The RBAC objects and the ServiceAccount it took, in creation order. */
  readonly created: readonly CreatedObject[];
}

/** The controller-manager's ServiceAccount `namespace/gardener-osc-controller-manager` in the seed. */
export async function controllerManagerSeedIdentity(
  seed: Envtest,
  admin: KubeClient,
  o: CreateOptions & {
    readonly namespace: string;
    /** The ClusterRole's and the binding's name (several identities on one seed need their own). */
    readonly roleName?: string;
    readonly expirationSeconds: number;
  },
): Promise<Identity> {
  const roleName = o.roleName ?? CONTROLLER_MANAGER_NAME;
  const role = seedClusterRole(CONTROLLER_MANAGER_NAME);
  const account = { name: CONTROLLER_MANAGER_NAME, namespace: o.namespace };
  const created = [
    await createObject(
      admin,
      RESOURCE.clusterRole,
      { ...role, metadata: { ...role.metadata, name: roleName } },
      o,
    ),
    await createObject(admin, RESOURCE.clusterRoleBinding, clusterRoleBinding(roleName, account), o),
  ];
  const kubeConfig = await seed.kubeConfigForServiceAccount(o.namespace, account.name, o.expirationSeconds);
  return {
    kubeConfig,
    created: [...created, { client: admin, resource: RESOURCE.serviceAccount, ...account }],
  };
}

/**
 * Binds the minimum shoot role of `applyMode` to ServiceAccounts in the shoot's kube-system; each
 * asks for its token itself (`shoot.kubeConfigForServiceAccount`).
 */
export async function bindShootRole(
  admin: KubeClient,
  o: CreateOptions & {
    readonly applyMode: 'managedResource' | 'direct';
    readonly serviceAccounts: readonly string[];
    /** The ClusterRole's and the binding's name (default: the chart's). */
    readonly roleName?: string;
  },
): Promise<CreatedObject[]> {
  const role = shootClusterRole(o.applyMode);
  const roleName = o.roleName ?? role.metadata.name;
  const binding = clusterRoleBinding(roleName, {
    name: o.serviceAccounts[0] ?? '',
    namespace: 'kube-system',
  });
  return [
    await createObject(
      admin,
      RESOURCE.clusterRole,
      { ...role, metadata: { ...role.metadata, name: roleName } },
      o,
    ),
    await createObject(
      admin,
      RESOURCE.clusterRoleBinding,
      {
        ...binding,
        subjects: o.serviceAccounts.map((name) => ({
          kind: 'ServiceAccount',
          name,
          namespace: 'kube-system',
        })),
      },
      o,
    ),
  ];
}

/** The shoot identity of one `gardener-internal`: a ServiceAccount bound to the minimum shoot role. */
export async function controllerManagerShootIdentity(
  shoot: Envtest,
  admin: KubeClient,
  o: CreateOptions & {
    readonly applyMode: 'managedResource' | 'direct';
    readonly serviceAccount: string;
    readonly roleName?: string;
    readonly expirationSeconds: number;
  },
): Promise<Identity> {
  const created = await bindShootRole(admin, { ...o, serviceAccounts: [o.serviceAccount] });
  const kubeConfig = await shoot.kubeConfigForServiceAccount(
    'kube-system',
    o.serviceAccount,
    o.expirationSeconds,
  );
  return {
    kubeConfig,
    created: [
      ...created,
      { client: admin, resource: RESOURCE.serviceAccount, name: o.serviceAccount, namespace: 'kube-system' },
    ],
  };
}
