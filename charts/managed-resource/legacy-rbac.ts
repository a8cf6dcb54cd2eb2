/**
 * The shoot RBAC of the legacy downloader (seed-side §4.4). With the gate on, the three bootstrap
 * ClusterRoleBindings carry `resources.gardener.cloud/mode: Ignore`: the node agent's
 * ManagedResource owns them, so deleting the legacy one after the migration keeps them.
 */
import { ANNOTATION, NAME, NAMESPACE_KUBE_SYSTEM, RESOURCES_MODE_IGNORE } from '../../api/index.js';
import { bootstrapClusterRoleBindings } from './rbac.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export function downloaderRbac(
  executorSecretNames: readonly string[],
  useGardenerNodeAgent: boolean,
): Record<string, unknown>[] {
  return [
    {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'Role',
      metadata: { name: NAME.downloader, namespace: NAMESPACE_KUBE_SYSTEM, creationTimestamp: null },
      rules: [
        {
          apiGroups: [''],
          resources: ['secrets'],
          resourceNames: [...executorSecretNames, NAME.downloader, NAME.valitail, NAME.nodeAgent],
          verbs: ['get'],
        },
      ],
    },
    {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'RoleBinding',
      metadata: { name: NAME.downloader, namespace: NAMESPACE_KUBE_SYSTEM, creationTimestamp: null },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: NAME.downloader },
      subjects: [
        { kind: 'Group', name: 'system:bootstrappers' },
        { kind: 'ServiceAccount', name: NAME.downloader, namespace: NAMESPACE_KUBE_SYSTEM },
      ],
    },
    ...bootstrapClusterRoleBindings(
      useGardenerNodeAgent ? { [ANNOTATION.resourcesMode]: RESOURCES_MODE_IGNORE } : undefined,
    ),
  ];
}
