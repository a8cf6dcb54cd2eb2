/**
 * What the rollout gate reads of a Node, an OSC secret and a Cluster, each as one comparable
 * value: an update that leaves it unchanged cannot change the decision, so it does not enqueue.
 */

import type { ClusterObject, NodeObject, SecretObject } from '../../api/index.js';
import {
  ANNOTATION,
  LABEL,
  NODE_AGENT_REPORT_ANNOTATIONS,
  PERMITTED_CHECKSUM_ANNOTATION,
} from '../../api/index.js';

const NODE_FIELDS_READ = [
  ANNOTATION.checksumCloudConfigData,
  ANNOTATION.reconciliationDelay,
  PERMITTED_CHECKSUM_ANNOTATION,
  ...NODE_AGENT_REPORT_ANNOTATIONS,
];
const NODE_LABELS_READ = [
  LABEL.workerPool,
  LABEL.zone,
  LABEL.kubernetesVersion,
  LABEL.criName,
  LABEL.nodeAgentSecretName,
];

/** The annotations and labels the gate reads, deletion, Ready (and since when), the taints. */
export function nodeSignature(n: NodeObject): string {
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
  return JSON.stringify([
    NODE_FIELDS_READ.map((k) => n.metadata?.annotations?.[k]),
    NODE_LABELS_READ.map((k) => n.metadata?.labels?.[k]),
    Boolean(n.metadata?.deletionTimestamp),
    ready?.status,
    String(ready?.lastTransitionTime ?? ''),
    n.spec?.taints?.map((t) => `${t.key}:${t.effect}`) ?? [],
  ]);
}

/** The script checksum, the pool and the role of an OSC secret. */
export function secretSignature(s: SecretObject): string {
  return JSON.stringify([
    s.metadata?.annotations?.[ANNOTATION.checksumDataScript],
    s.metadata?.labels?.[LABEL.workerPool],
    s.metadata?.labels?.[LABEL.gardenerRole],
  ]);
}

/** The Cluster's annotations (the operator's actions and the gate's settings live there). */
export function clusterAnnotationsSignature(c: ClusterObject): string {
  return JSON.stringify(c.metadata?.annotations ?? {});
}

export const nodeChanged = (a: NodeObject, b: NodeObject): boolean => nodeSignature(a) !== nodeSignature(b);

export const secretChanged = (a: SecretObject, b: SecretObject): boolean =>
  secretSignature(a) !== secretSignature(b);

export const clusterAnnotationsChanged = (a: ClusterObject, b: ClusterObject): boolean =>
  clusterAnnotationsSignature(a) !== clusterAnnotationsSignature(b);
