/**
 * The per-node identity of a node agent and what it may write on its own Node. An agent
 * authenticates with a client certificate whose subject is `CN=<NODE_AGENT_USER_PREFIX><node>`,
 * `O=<NODE_AGENT_GROUP>` (the names upstream Gardener later chose for its node-agent authorizer);
 * the authorizer limits that user to objects of `<node>`, and the admission policy limits what it
 * may change on its Node to `NODE_AGENT_OWNED_NODE_METADATA`.
 */
import { ANNOTATION } from './annotations.js';
import { DRIFT_CONDITION_TYPE } from './drift.js';
import { LABEL } from './labels.js';
import { NODE_AGENT_REPORT_ANNOTATIONS } from './rollout.js';

export const NODE_AGENT_USER_PREFIX = 'gardener.cloud:node-agent:machine:';
export const NODE_AGENT_GROUP = 'gardener.cloud:node-agents';

/**
 * The lifetime a node agent asks for (`spec.expirationSeconds` of its CertificateSigningRequest):
 * 30 days, as upstream. The approver's maximum (`nodeAgent.maxCertificateLifetime`) defaults to it.
 */
export const NODE_AGENT_CERTIFICATE_LIFETIME_SECONDS = 30 * 24 * 3600;

/** `kubernetes.io/kube-apiserver-client`: the signer of client certificates the API server trusts. */
export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';

/** How node agents authenticate: one identity per node, or the shared ServiceAccount of v1.91. */
export const NODE_AGENT_IDENTITY = {
  node: 'node',
  serviceAccount: 'serviceAccount',
} as const;
export type NodeAgentIdentityMode = (typeof NODE_AGENT_IDENTITY)[keyof typeof NODE_AGENT_IDENTITY];

/** The ServiceAccounts whose tokens may ask for a running node's identity (switching to it). */
export const NODE_AGENT_LEGACY_SERVICE_ACCOUNTS = [
  'system:serviceaccount:kube-system:gardener-node-agent',
  'system:serviceaccount:kube-system:cloud-config-downloader',
] as const;

/**
 * Set on a Node the agent cordoned itself for a drain (docs/least-disruption.md), so that it
 * uncordons only its own cordon and an operator's stays.
 */
export const CORDONED_BY_AGENT_ANNOTATION = 'node-configuration.gardener.cloud/cordoned-by-agent';

/**
 * The labels and annotations of its own Node a node agent may set, change or remove; any other
 * change of its Node's metadata, spec or conditions is refused by the admission policy. One list,
 * extended where the agent starts to own another key: its apply reports are the agent's, the
 * rollout gate's permission (`permitted-checksum`) is the seed's and stays out, so an agent
 * cannot let itself apply what the gate holds back.
 */
export const NODE_AGENT_OWNED_NODE_METADATA = {
  labels: [LABEL.kubernetesVersion],
  annotations: [
    ANNOTATION.checksumCloudConfigData,
    ANNOTATION.restartSystemdServices,
    ...NODE_AGENT_REPORT_ANNOTATIONS,
    CORDONED_BY_AGENT_ANNOTATION,
  ],
} as const satisfies { labels: readonly string[]; annotations: readonly string[] };

/**
 * The condition types of its own Node's status a node agent may set, change or remove (the
 * kubelet's, `Ready` and the pressure conditions, stay out): `SystemdUnitsReady`, which gardener
 * v1.150.0's agent reports (pkg/nodeagent/controller/healthcheck, systemd unit check), and our
 * drift condition (api/well-known/drift.ts).
 */
export const NODE_AGENT_OWNED_NODE_CONDITIONS = ['SystemdUnitsReady', DRIFT_CONDITION_TYPE] as const;

/**
 * The one field of its own Node's spec a node agent may change: `unschedulable`, the cordon of a
 * drain before a restart the disruption policy asks to drain for (docs/least-disruption.md). A
 * node agent runs as root on its node and can stop the kubelet: cordoning that node and evicting
 * its pods through the Eviction API, which PodDisruptionBudgets govern, reach no further.
 */
export const NODE_AGENT_OWNED_NODE_SPEC_FIELDS = ['unschedulable'] as const;

export function nodeAgentUserName(nodeName: string): string {
  return `${NODE_AGENT_USER_PREFIX}${nodeName}`;
}

/** The node a node agent user names; undefined for other users (or an empty name). */
export function nodeOfNodeAgentUser(userName: string): string | undefined {
  if (!userName.startsWith(NODE_AGENT_USER_PREFIX)) return undefined;
  return userName.slice(NODE_AGENT_USER_PREFIX.length) || undefined;
}

const NODE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A Node's name is a DNS subdomain: lower case, at most 253 characters. */
export function isNodeName(name: string): boolean {
  return name.length <= 253 && NODE_NAME.test(name);
}
