/**
 * What a node agent with a per-node identity may change, enforced in the shoot's API server by a
 * ValidatingAdmissionPolicy (no webhook to be down): on its own Node only the labels and
 * annotations it owns (api/ NODE_AGENT_OWNED_NODE_METADATA), `spec.unschedulable` (the cordon of a
 * drain, NODE_AGENT_OWNED_NODE_SPEC_FIELDS), the status' addresses (the lost InternalIP recovery)
 * and the conditions of the types it owns (NODE_AGENT_OWNED_NODE_CONDITIONS), never the rest of
 * its spec (taints, provider ID, pod CIDRs), any other status field or condition, or other
 * metadata, through the Node or its status subresource (the API server keeps the spec on a status
 * write, but not the metadata); only its own Lease `kube-system/gardener-node-agent-<node>`; only
 * Events about its own Node, and on an update (a patch) the Event must have been about its Node
 * before too, so it cannot take over another Node's Event. The
 * authorizer decides which objects it may touch at all; this policy decides what it may write
 * into them, which an authorizer cannot see (the kubelet's anchor: the Node authorizer plus
 * NodeRestriction).
 */
import {
  NAME,
  NAMESPACE_KUBE_SYSTEM,
  NODE_AGENT_OWNED_NODE_CONDITIONS,
  NODE_AGENT_OWNED_NODE_METADATA,
  NODE_AGENT_USER_PREFIX,
} from '../../api/index.js';

const ADMISSION_GROUP = 'admissionregistration.k8s.io';

const celList = (items: readonly string[]) => `[${items.map((i) => `'${i}'`).join(', ')}]`;

/** Everything but the owned keys of `field` (labels or annotations) is as it was. */
function onlyOwnedChange(field: 'labels' | 'annotations', owned: readonly string[]): string {
  const now = `object.metadata.?${field}.orValue({})`;
  const before = `oldObject.metadata.?${field}.orValue({})`;
  const ownedList = celList(owned);
  return (
    `${before}.all(k, k in ${ownedList} || (k in ${now} && ${now}[k] == ${before}[k])) && ` +
    `${now}.all(k, k in ${ownedList} || k in ${before})`
  );
}

const isNode = "request.kind.kind == 'Node'";

/**
 * Every field of a Node's status but `addresses`, which the agent may write: v1.NodeStatus of
 * Kubernetes v1.34 (https://github.com/kubernetes/api/blob/v0.34.0/core/v1/types.go, NodeStatus).
 * A field the API server adds later would be writable: test/integration/node-agent-admission-policy
 * compares this list with the NodeStatus schema the API server serves.
 */
export const NODE_STATUS_FIELDS_NOT_OWNED = [
  'capacity',
  'allocatable',
  'phase',
  'conditions',
  'daemonEndpoints',
  'nodeInfo',
  'images',
  'volumesInUse',
  'volumesAttached',
  'config',
  'runtimeHandlers',
  'features',
] as const;

/**
 * Every field of a Node's spec but `unschedulable` (NODE_AGENT_OWNED_NODE_SPEC_FIELDS): v1.NodeSpec
 * of Kubernetes v1.34 (same file, NodeSpec); test/integration/node-agent-admission-policy compares
 * it with the schema the API server serves, as for the status.
 */
export const NODE_SPEC_FIELDS_NOT_OWNED = [
  'podCIDR',
  'podCIDRs',
  'providerID',
  'taints',
  'configSource',
  'externalID',
] as const;

/** The conditions of `o` (object or oldObject) of the types the agent does not own, in order. */
const conditionsNotOwned = (o: 'object' | 'oldObject') =>
  `${o}.status.?conditions.orValue([]).filter(c, !(c.type in ${celList(NODE_AGENT_OWNED_NODE_CONDITIONS)}))`;

/** `involvedObject` of `o` (object or oldObject) names its Node, cluster-scoped. */
const aboutItsNode = (o: 'object' | 'oldObject') =>
  `${o}.involvedObject.?kind.orValue('') == 'Node' && ` +
  `${o}.involvedObject.?name.orValue('') == variables.node && ` +
  `${o}.involvedObject.?namespace.orValue('') == ''`;

export function nodeAgentAdmissionPolicy(): Record<string, unknown>[] {
  const { labels, annotations } = NODE_AGENT_OWNED_NODE_METADATA;
  const validations = [
    {
      expression: `!(${isNode}) || object.metadata.name == variables.node`,
      messageExpression: `'a node agent may change only its own Node ' + variables.node`,
      reason: 'Forbidden',
    },
    {
      expression: `!(${isNode}) || (${onlyOwnedChange('labels', labels)})`,
      message: `a node agent may set, change or remove only these labels of its Node: ${labels.join(', ')}`,
      reason: 'Forbidden',
    },
    {
      expression: `!(${isNode}) || (${onlyOwnedChange('annotations', annotations)})`,
      message: `a node agent may set, change or remove only these annotations of its Node: ${annotations.join(', ')}`,
      reason: 'Forbidden',
    },
    {
      expression:
        `!(${isNode}) || (${NODE_SPEC_FIELDS_NOT_OWNED.map((f) => `object.spec.?${f} == oldObject.spec.?${f}`).join(' && ')} && ` +
        'object.metadata.?finalizers == oldObject.metadata.?finalizers && ' +
        'object.metadata.?ownerReferences == oldObject.metadata.?ownerReferences)',
      message: `a node agent may change only spec.unschedulable of its Node (a cordon), not ${NODE_SPEC_FIELDS_NOT_OWNED.join(', ')}, its finalizers or owners`,
      reason: 'Forbidden',
    },
    {
      expression: `!(${isNode}) || (${NODE_STATUS_FIELDS_NOT_OWNED.filter((f) => f !== 'conditions')
        .map((f) => `object.status.?${f} == oldObject.status.?${f}`)
        .join(' && ')} && ${conditionsNotOwned('object')} == ${conditionsNotOwned('oldObject')})`,
      message: `a node agent may change only the addresses and the conditions ${NODE_AGENT_OWNED_NODE_CONDITIONS.join(', ')} in its Node's status, not ${NODE_STATUS_FIELDS_NOT_OWNED.join(', ')}`,
      reason: 'Forbidden',
    },
    {
      expression:
        "request.kind.kind != 'Lease' || " +
        `(object.metadata.name == '${NAME.nodeAgentLeasePrefix}' + variables.node && ` +
        `object.metadata.namespace == '${NAMESPACE_KUBE_SYSTEM}')`,
      messageExpression: `'a node agent may write only its own Lease ${NAMESPACE_KUBE_SYSTEM}/${NAME.nodeAgentLeasePrefix}' + variables.node`,
      reason: 'Forbidden',
    },
    {
      expression: `request.kind.kind != 'Event' || (${aboutItsNode('object')})`,
      messageExpression: `'a node agent may record events only about its own Node ' + variables.node`,
      reason: 'Forbidden',
    },
    {
      expression: `request.kind.kind != 'Event' || request.operation != 'UPDATE' || (${aboutItsNode('oldObject')})`,
      messageExpression: `'a node agent may change only events about its own Node ' + variables.node + ', and this one is not'`,
      reason: 'Forbidden',
    },
  ];
  return [
    {
      apiVersion: `${ADMISSION_GROUP}/v1`,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: NAME.nodeAgent },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [''],
              apiVersions: ['v1'],
              operations: ['UPDATE'],
              resources: ['nodes', 'nodes/status'],
            },
            {
              apiGroups: [''],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['events'],
            },
            {
              apiGroups: ['coordination.k8s.io'],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['leases'],
            },
          ],
        },
        matchConditions: [
          {
            name: 'node-agent',
            expression: `request.userInfo.username.startsWith('${NODE_AGENT_USER_PREFIX}')`,
          },
        ],
        variables: [
          {
            name: 'node',
            expression: `request.userInfo.username.substring(${NODE_AGENT_USER_PREFIX.length})`,
          },
        ],
        validations,
      },
    },
    {
      apiVersion: `${ADMISSION_GROUP}/v1`,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: NAME.nodeAgent },
      spec: { policyName: NAME.nodeAgent, validationActions: ['Deny'] },
    },
  ];
}
