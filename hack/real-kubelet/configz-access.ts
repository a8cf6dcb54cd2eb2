/**
 * Lets the node agent's identity read its kubelet's configuration (`get nodes/configz`, the
 * fine-grained kubelet authorization of Kubernetes 1.33+, and `nodes/proxy`, which older kubelets
 * ask for), so its in-effect check can compare the kubelet's configz with the rendered
 * configuration. The shoot render grants no such access yet: without it the agent does not judge
 * configz (docs/node-agent.md#in-effect). Test landscape only.
 */
import { type KubernetesObject, KubernetesObjectApi } from '@kubernetes/client-node';
import { NODE_AGENT_GROUP } from '../../api/index.js';
import type { Envtest } from '../landscape/envtest.js';

export const CONFIGZ_ROLE = 'real-node:kubelet-configz-reader';

export async function grantConfigzAccess(
  env: Envtest,
  serviceAccount = 'gardener-node-agent',
): Promise<void> {
  const objects = KubernetesObjectApi.makeApiClient(env.kubeConfig);
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: CONFIGZ_ROLE },
    rules: [{ apiGroups: [''], resources: ['nodes/configz', 'nodes/proxy'], verbs: ['get'] }],
  };
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: CONFIGZ_ROLE },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: CONFIGZ_ROLE },
    subjects: [
      { kind: 'ServiceAccount', name: serviceAccount, namespace: 'kube-system' },
      // the per-node identities (a v1.150 pool's agents)
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: NODE_AGENT_GROUP },
    ],
  };
  // one envtest serves every real-kubelet file of a run: the second finds the grant in place
  for (const o of [role, binding])
    await objects.create(o as KubernetesObject).catch(async (e: { code?: number }) => {
      if (e.code !== 409) throw e;
      await objects.replace(o as KubernetesObject);
    });
}
