/**
 * The shoot RBAC of the legacy downloader (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/downloader/downloader.go). With the gate on, the
 * three bootstrap ClusterRoleBindings carry `resources.gardener.cloud/mode: Ignore`: the node
 * agent's ManagedResource owns them, so deleting the legacy one after the migration keeps them.
 */
import {
  ANNOTATION,
  NAME,
  NAMESPACE_KUBE_SYSTEM,
  NODE_AGENT_IDENTITY,
  type NodeAgentIdentityMode,
  RESOURCES_MODE_IGNORE,
} from '../../api/index.js';
import { bootstrapClusterRoleBindings } from './rbac.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * With per-node identities there is no shared node agent token: the Role leaves out
 * `gardener-node-agent`, so a bootstrap token can no longer read it (the migrating agent asks for
 * its identity with the downloader's token instead).
 */
export function downloaderRbac(
  executorSecretNames: readonly string[],
  useGardenerNodeAgent: boolean,
  identity: NodeAgentIdentityMode,
): Record<string, unknown>[] {
  const agentToken = identity === NODE_AGENT_IDENTITY.node ? [] : [NAME.nodeAgent];
  return [
    {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'Role',
      metadata: { name: NAME.downloader, namespace: NAMESPACE_KUBE_SYSTEM, creationTimestamp: null },
      rules: [
        {
          apiGroups: [''],
          resources: ['secrets'],
          resourceNames: [...executorSecretNames, NAME.downloader, NAME.valitail, ...agentToken],
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
