/**
 * The least a shoot must allow the controller-manager (the identity in the seed secret
 * `gardener-internal`), for operators whose shoot access is not admin. Direct apply mode needs
 * the second group of rules; with ManagedResources gardener-resource-manager writes the shoot.
 */
import {
  KUBE_APISERVER_CLIENT_SIGNER,
  NAME,
  NODE_AGENT_IDENTITY,
  type NodeAgentIdentityMode,
} from '../../api/index.js';
import type { ExplainedRule } from './rule.js';

const NODE_AGENT_ROLES = [NAME.nodeAgent, NAME.downloader];
const BOOTSTRAP_CLUSTER_ROLES = [
  'system:node-bootstrapper',
  'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
  'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
];

/** With per-node identities: the CSR approver, and the authorizer's view of the requests. */
const NODE_IDENTITY_RULES: ExplainedRule[] = [
  {
    apiGroups: ['certificates.k8s.io'],
    resources: ['certificatesigningrequests'],
    verbs: ['get', 'list', 'watch'],
    reason:
      'the node agent CSR approver judges requests by their content (names carry hashes); the authorizer checks who asked for a CSR an agent reads',
  },
  {
    apiGroups: ['certificates.k8s.io'],
    resources: ['certificatesigningrequests/approval'],
    verbs: ['update'],
    reason:
      'the approver approves or denies node agent requests (the signer restricts it to one signer name)',
  },
  {
    apiGroups: ['certificates.k8s.io'],
    resources: ['signers'],
    verbs: ['approve'],
    resourceNames: [KUBE_APISERVER_CLIENT_SIGNER],
    reason: 'node agent client certificates only',
  },
  {
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['get'],
    reason:
      'the authorizer lets a node agent evict only pods bound to its Node, and reads the pod of each eviction (drains are rare; no pod cache)',
  },
];

/** Direct mode with per-node identities applies the node agents' admission policy. */
const DIRECT_NODE_IDENTITY_RULES: ExplainedRule[] = [
  {
    apiGroups: ['admissionregistration.k8s.io'],
    resources: ['validatingadmissionpolicies', 'validatingadmissionpolicybindings'],
    verbs: ['get', 'list', 'create', 'patch', 'delete'],
    reason:
      'direct mode applies and prunes the node agents admission policy by label; create cannot be restricted by name',
  },
];

export function shootRules(
  applyMode: 'managedResource' | 'direct',
  identity: NodeAgentIdentityMode = NODE_AGENT_IDENTITY.node,
): ExplainedRule[] {
  const perNode = identity === NODE_AGENT_IDENTITY.node;
  const always: ExplainedRule[] = [
    {
      apiGroups: [''],
      resources: ['nodes'],
      verbs: ['get', 'list', 'watch', 'patch'],
      reason:
        'node-delay annotates every Node with its delay, the rollout with the checksum it may apply; node status, migration and rollout read all Nodes',
    },
    {
      apiGroups: [''],
      resources: ['secrets'],
      verbs: ['get', 'list', 'watch', 'patch', 'delete'],
      reason:
        'OSC secrets are found by label (their names carry hashes); token-labels labels access-token secrets; the migration deletes kube-system/cloud-config-downloader (namespaced to kube-system where a Role is used)',
    },
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['list', 'watch'],
      reason:
        'the migration (while nodes migrate) and the rollout gate (while it is on) watch every node agent Lease (gardener-node-agent-<node>: one per node) in the shoot cache',
    },
  ];
  if (perNode) always.push(...NODE_IDENTITY_RULES);
  if (applyMode !== 'direct') return always;
  return [
    ...always,
    ...(perNode ? DIRECT_NODE_IDENTITY_RULES : []),
    {
      apiGroups: [''],
      resources: ['secrets', 'serviceaccounts'],
      verbs: ['create', 'update'],
      reason:
        'direct mode writes OSC secrets, access tokens and ServiceAccounts; create cannot be restricted by name',
    },
    {
      apiGroups: [''],
      resources: ['serviceaccounts'],
      verbs: ['get', 'list', 'patch', 'delete'],
      reason: 'direct mode prunes by label across its sets; the token-requestor keeps ServiceAccounts',
    },
    {
      apiGroups: [''],
      resources: ['serviceaccounts/token'],
      verbs: ['create'],
      resourceNames: [NAME.nodeAgent, NAME.downloader, NAME.valitail],
      reason: 'token-requestor',
    },
    {
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'],
      verbs: ['get', 'list', 'create', 'patch', 'delete'],
      reason:
        'direct mode applies and prunes the node agents RBAC by label; create cannot be restricted by name',
    },
    {
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['roles', 'clusterroles'],
      verbs: ['escalate'],
      resourceNames: NODE_AGENT_ROLES,
      reason: 'the node agents roles grant what the controller-manager itself does not hold',
    },
    {
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['roles', 'clusterroles'],
      verbs: ['bind'],
      resourceNames: [...NODE_AGENT_ROLES, ...BOOTSTRAP_CLUSTER_ROLES],
      reason: 'the bindings of the node agents roles and the bootstrap ClusterRoleBindings',
    },
  ];
}
