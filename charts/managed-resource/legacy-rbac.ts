/**
 * The shoot RBAC of the legacy downloader (seed-side §4.4). With the gate on, the three bootstrap
 * ClusterRoleBindings carry `resources.gardener.cloud/mode: Ignore`: the node agent's
 * ManagedResource owns them, so deleting the legacy one after the migration keeps them.
 */
import { ANNOTATION, NAME, NAMESPACE_KUBE_SYSTEM, RESOURCES_MODE_IGNORE } from '../../api/index.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function bootstrapBinding(name: string, group: string, useGardenerNodeAgent: boolean) {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: {
      name,
      creationTimestamp: null,
      ...(useGardenerNodeAgent ? { annotations: { [ANNOTATION.resourcesMode]: RESOURCES_MODE_IGNORE } } : {}),
    },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
    subjects: [{ apiGroup: RBAC_GROUP, kind: 'Group', name: group }],
  };
}

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
    bootstrapBinding('system:node-bootstrapper', 'system:bootstrappers', useGardenerNodeAgent),
    bootstrapBinding(
      'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
      'system:bootstrappers',
      useGardenerNodeAgent,
    ),
    bootstrapBinding(
      'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
      'system:nodes',
      useGardenerNodeAgent,
    ),
  ];
}
