/**
 * The shoot RBAC of the node agents in the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/rbac.go): only the
 * three ClusterRoleBindings that let machines bootstrap; the agents authenticate with their own
 * certificates and gardener-resource-manager's authorizer decides for them.
 */
const RBAC_GROUP = 'rbac.authorization.k8s.io';

export function nodeAgentRbacV150(): Record<string, unknown>[] {
  const binding = (name: string, group: string) => ({
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
    subjects: [{ apiGroup: RBAC_GROUP, kind: 'Group', name: group }],
  });
  return [
    binding('system:node-bootstrapper', 'system:bootstrappers'),
    binding('system:certificates.k8s.io:certificatesigningrequests:nodeclient', 'system:bootstrappers'),
    binding('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', 'system:nodes'),
  ];
}
