/**
 * The rollout gate's permission on a Node (`node-configuration.gardener.cloud/permitted-checksum`,
 * docs/rollout.md) is the seed's to write. The node agent's own policy
 * (node-agent-admission-policy.ts) keeps the agent from writing it; the kubelet of the same node
 * may otherwise change its Node's annotations (NodeRestriction limits labels, not annotations), so
 * a compromised node could give itself the gate's permission through its kubelet. This
 * ValidatingAdmissionPolicy refuses kubelets (`system:node:<name>` in `system:nodes`) setting,
 * changing or removing it, on the Node or its status, and creating a Node that carries it.
 */
import { PERMITTED_CHECKSUM_ANNOTATION } from '../../api/index.js';

const ADMISSION_GROUP = 'admissionregistration.k8s.io';

export const KUBELET_POLICY_NAME = 'gardener-node-agent-kubelet';

const KUBELET_USER_PREFIX = 'system:node:';
const KUBELET_GROUP = 'system:nodes';

const annotations = (o: 'object' | 'oldObject') => `${o}.metadata.?annotations.orValue({})`;
const KEY = `'${PERMITTED_CHECKSUM_ANNOTATION}'`;

export function kubeletAdmissionPolicy(): Record<string, unknown>[] {
  return [
    {
      apiVersion: `${ADMISSION_GROUP}/v1`,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: KUBELET_POLICY_NAME },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [''],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['nodes', 'nodes/status'],
            },
          ],
        },
        matchConditions: [
          {
            name: 'kubelet',
            expression:
              `request.userInfo.username.startsWith('${KUBELET_USER_PREFIX}') && ` +
              `'${KUBELET_GROUP}' in request.userInfo.groups`,
          },
        ],
        validations: [
          {
            expression:
              `request.operation == 'CREATE' ? !(${KEY} in ${annotations('object')}) : ` +
              `${annotations('object')}[?${KEY}] == ${annotations('oldObject')}[?${KEY}]`,
            message: `a kubelet may not set, change or remove the rollout gate's permission ${PERMITTED_CHECKSUM_ANNOTATION} on its Node: only the seed writes it`,
            reason: 'Forbidden',
          },
        ],
      },
    },
    {
      apiVersion: `${ADMISSION_GROUP}/v1`,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: KUBELET_POLICY_NAME },
      spec: { policyName: KUBELET_POLICY_NAME, validationActions: ['Deny'] },
    },
  ];
}
