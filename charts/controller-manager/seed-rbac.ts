/**
 * What the controller-manager may do in the seed: the ClusterRole its ServiceAccount is bound to.
 * No wildcards; each rule names its reason (docs/controller-manager.md lists them too).
 */
import type { ExplainedRule } from './rule.js';

const SHOOT_NAMESPACES = 'shoot namespaces are not known in advance (every selected Cluster has its own)';

export function seedRules(leaderElectionLease: string): ExplainedRule[] {
  return [
    {
      apiGroups: ['extensions.gardener.cloud'],
      resources: ['clusters'],
      verbs: ['get', 'list', 'watch', 'patch'],
      reason:
        'Clusters are selected by label, so all are watched; patch adds and removes our finalizer and removes a rollout action annotation once acted on',
    },
    {
      apiGroups: ['extensions.gardener.cloud'],
      resources: ['operatingsystemconfigs'],
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
      reason: `OSC names derive from worker pools and Kubernetes versions, and ${SHOOT_NAMESPACES}; os-local (update) manages its finalizer`,
    },
    {
      apiGroups: ['extensions.gardener.cloud'],
      resources: ['operatingsystemconfigs/status'],
      verbs: ['patch', 'update'],
      reason: 'os-local reports status like an OS extension; OSC names are not known in advance',
    },
    {
      apiGroups: ['resources.gardener.cloud'],
      resources: ['managedresources'],
      verbs: ['get', 'patch', 'delete'],
      resourceNames: ['shoot-gardener-node-agent', 'shoot-cloud-config-execution'],
      reason: 'the two ManagedResources of the node configuration (create: next rule)',
    },
    {
      apiGroups: ['resources.gardener.cloud'],
      resources: ['managedresources'],
      verbs: ['create'],
      reason: 'Kubernetes cannot restrict create by name',
    },
    {
      apiGroups: [''],
      resources: ['secrets'],
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete', 'deletecollection'],
      reason: `ManagedResource secrets are named by checksum, CA and SSH secrets are found by label, os-local writes osc-result-<name>, the token-requestor watches access secrets by label; ${SHOOT_NAMESPACES}`,
    },
    {
      apiGroups: [''],
      resources: ['configmaps'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
      reason: `the migration state (gardener-node-agent-migration) and the rollout status (gardener-node-agent-rollout) per shoot, watched by label: ${SHOOT_NAMESPACES}`,
    },
    {
      apiGroups: ['', 'events.k8s.io'],
      resources: ['events'],
      verbs: ['get', 'list', 'create', 'update', 'patch'],
      reason:
        'events on Clusters, OSCs and secrets get generated names; a restarted process lists its node status events on a Cluster, so an unchanged status is not reported again',
    },
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['get', 'update'],
      resourceNames: [leaderElectionLease],
      reason: 'leader election',
    },
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['create'],
      reason: 'leader election creates its Lease on first start; Kubernetes cannot restrict create by name',
    },
  ];
}
