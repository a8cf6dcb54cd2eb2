/**
 * What the node agents of a per-node-identity pool may do in the test shoot. On a landscape the
 * shoot's kube-apiserver asks the node agent authorizer (controllers/node-agent-authorizer, the
 * names upstream chose in gardener v1.150.0 pkg/admissioncontroller/webhook/auth/nodeagent) and the
 * controller-manager approves each agent's CSR; this shoot has neither (its authorization is RBAC),
 * so the agents' group gets, through RBAC, what the shared ServiceAccount of v1.91 gets from the
 * shoot render (components/node-agent): its Node, events, its pool's secrets, Leases; and the Pods
 * upstream's v1.150.0 agent watches (its Node's, for the static pods' hashes: gardener v1.150.0
 * pkg/resourcemanager/webhook/nodeagentauthorizer/authorizer.go allows list and watch with a
 * `spec.nodeName` field selector; without them its cache never syncs and it applies nothing).
 * Not limited to the agent's own Node as the authorizer limits it:
 * test/integration/node-agent-identity*.test.ts covers that. Only for hack/real-node.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { NODE_AGENT_GROUP } from '../../api/index.js';

const NAME = 'real-node:node-agents';

/** The RBAC objects granting NODE_AGENT_GROUP what the agents need. Pure. */
export function nodeAgentGroupGrants(secretNames: readonly string[]): KubernetesObject[] {
  const subjects = [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: NODE_AGENT_GROUP }];
  const rbac = 'rbac.authorization.k8s.io/v1';
  return [
    {
      apiVersion: rbac,
      kind: 'ClusterRole',
      metadata: { name: NAME },
      rules: [
        {
          apiGroups: [''],
          resources: ['nodes', 'nodes/status'],
          verbs: ['get', 'list', 'watch', 'patch', 'update'],
        },
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
        {
          apiGroups: ['', 'events.k8s.io'],
          resources: ['events'],
          verbs: ['get', 'list', 'watch', 'create', 'patch', 'update'],
        },
      ],
    },
    {
      apiVersion: rbac,
      kind: 'ClusterRoleBinding',
      metadata: { name: NAME },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: NAME },
      subjects,
    },
    {
      apiVersion: rbac,
      kind: 'Role',
      metadata: { name: NAME, namespace: 'kube-system' },
      rules: [
        {
          apiGroups: [''],
          resources: ['secrets'],
          resourceNames: [...secretNames],
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
      apiVersion: rbac,
      kind: 'RoleBinding',
      metadata: { name: NAME, namespace: 'kube-system' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: NAME },
      subjects,
    },
  ] as unknown as KubernetesObject[];
}
