/**
 * The shoot RBAC the node agents need (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/rbac.go): with the
 * shared ServiceAccount exactly as gardenlet ships it; with per-node identities only the kubelet's
 * bootstrap bindings (the authorizer decides for the agents, the admission policy limits what they
 * write, and a bootstrap token reads no secret).
 */
import {
  NAME,
  NAMESPACE_KUBE_SYSTEM,
  NODE_AGENT_IDENTITY,
  type NodeAgentIdentityMode,
} from '../../api/index.js';
import { kubeletAdmissionPolicy } from './kubelet-admission-policy.js';
import { nodeAgentAdmissionPolicy } from './node-agent-admission-policy.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const SA_SUBJECT = { kind: 'ServiceAccount', name: NAME.nodeAgent, namespace: NAMESPACE_KUBE_SYSTEM };

/**
 * The three ClusterRoleBindings that let machines bootstrap (join with a bootstrap token, get
 * their client certificates approved); both ManagedResources ship them, the legacy one marked.
 */
export function bootstrapClusterRoleBindings(
  annotations?: Record<string, string>,
): Record<string, unknown>[] {
  const binding = (name: string, group: string) => ({
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, creationTimestamp: null, ...(annotations ? { annotations } : {}) },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
    subjects: [{ apiGroup: RBAC_GROUP, kind: 'Group', name: group }],
  });
  return [
    binding('system:node-bootstrapper', 'system:bootstrappers'),
    binding('system:certificates.k8s.io:certificatesigningrequests:nodeclient', 'system:bootstrappers'),
    binding('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', 'system:nodes'),
  ];
}

/**
 * Running nodes switch to their own identity with the token they already have (the shared agent
 * token, or the legacy downloader's while migrating): both may request certificates, and the
 * approver grants them only the identity of a registered Node.
 */
export const IDENTITY_REQUEST_BINDING = 'gardener-node-agent:request-identity';

function identityRequestBinding(): Record<string, unknown> {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: IDENTITY_REQUEST_BINDING, creationTimestamp: null },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'system:node-bootstrapper' },
    subjects: [
      SA_SUBJECT,
      { kind: 'ServiceAccount', name: NAME.downloader, namespace: NAMESPACE_KUBE_SYSTEM },
    ],
  };
}

export function nodeAgentRbac(
  oscSecretNames: readonly string[],
  identity: NodeAgentIdentityMode,
): Record<string, unknown>[] {
  if (identity === NODE_AGENT_IDENTITY.node)
    return [
      ...bootstrapClusterRoleBindings(),
      identityRequestBinding(),
      ...nodeAgentAdmissionPolicy(),
      ...kubeletAdmissionPolicy(),
    ];
  return [
    {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'ClusterRole',
      metadata: { name: NAME.nodeAgent, creationTimestamp: null },
      rules: [
        {
          apiGroups: [''],
          resources: ['nodes', 'nodes/status'],
          verbs: ['get', 'list', 'watch', 'patch', 'update'],
        },
        {
          apiGroups: [''],
          resources: ['events'],
          verbs: ['get', 'list', 'watch', 'create', 'patch', 'update'],
        },
      ],
    },
    {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: NAME.nodeAgent, creationTimestamp: null },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: NAME.nodeAgent },
      subjects: [SA_SUBJECT],
    },
    {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'Role',
      metadata: { name: NAME.nodeAgent, namespace: NAMESPACE_KUBE_SYSTEM, creationTimestamp: null },
      rules: [
        {
          apiGroups: [''],
          resources: ['secrets'],
          resourceNames: [NAME.nodeAgent, NAME.valitail, ...oscSecretNames],
          verbs: ['get', 'list', 'watch'],
        },
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: ['get', 'list', 'watch', 'create', 'update'],
        },
      ],
    },
    {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'RoleBinding',
      metadata: { name: NAME.nodeAgent, namespace: NAMESPACE_KUBE_SYSTEM, creationTimestamp: null },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: NAME.nodeAgent },
      subjects: [{ kind: 'Group', name: 'system:bootstrappers' }, SA_SUBJECT],
    },
    ...bootstrapClusterRoleBindings(),
  ];
}
