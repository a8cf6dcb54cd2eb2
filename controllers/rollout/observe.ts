/**
 * What the rollout reads of a shoot, reduced to what it decides on: per worker pool the target
 * checksum (its OSC secret's `checksum/data-script`) and per Node its zone, delay, what it runs
 * and reports, whether it is Ready and whether its agent's Lease is fresh. Pure.
 */

import type { NodeObject, SecretObject } from '../../api/index.js';
import {
  ANNOTATION,
  type ApplyReport,
  key,
  LABEL,
  LABEL_VALUE,
  PERMITTED_CHECKSUM_ANNOTATION,
  parseDelayAnnotation,
  ROLLOUT_FAILURE_ANNOTATION,
  readApplyReport,
  TAINT_PREFER_NO_SCHEDULE,
  tryParseSemVer,
} from '../../api/index.js';
import type { LeaseState } from './lease-observer.js';

export interface NodeView {
  readonly name: string;
  readonly zone?: string;
  /** Its reconciliation delay in nanoseconds, if it has a valid one. */
  readonly delay?: number;
  /** `checksum/cloud-config-data`: what it last applied; undefined for a machine that never applied. */
  readonly applied?: string;
  /** The permission annotation as it is now. */
  readonly permitted?: string;
  readonly report?: ApplyReport;
  /** Its Ready condition is True. */
  readonly ready: boolean;
  /** lastTransitionTime of the Ready condition (ms). */
  readonly readySince?: number;
  /**
   * Its agent's Lease is fresh by the seed's clock (lease-observer.ts); undefined while the seed
   * cannot tell: the Leases not listed yet, or most of the shoot's Leases stale together.
   */
  readonly leaseFresh?: boolean;
  /** When the seed last saw its Lease renewed (ms, the seed's clock), for messages. */
  readonly leaseRenewed?: number;
  /** Since when its Lease is stale (ms, the seed's clock). */
  readonly leaseStaleSince?: number;
  /** Tainted to be replaced by machine-controller-manager: never chosen for a wave. */
  readonly leaving?: boolean;
  /** It claims the target (a report, or running it) without the seed's permission (trust.ts). */
  readonly outOfTurn?: boolean;
  /** The seed's record on the Node that it failed a checksum (halt-marks.ts). */
  readonly failureMark?: { readonly checksum: string; readonly reason: string };
}

export interface PoolObservation {
  readonly pool: string;
  /** The checksum the pool's OSC secret holds; undefined before the secret exists. */
  readonly target?: string;
  readonly nodes: readonly NodeView[];
}

export type { LeaseObject, NodeObject, SecretObject } from '../../api/index.js';

const ms = (t: string | Date | null | undefined): number | undefined => {
  if (!t) return undefined;
  const v = t instanceof Date ? t.getTime() : Date.parse(t);
  return Number.isNaN(v) ? undefined : v;
};

/** Per node name, its Lease as the seed judged it; undefined while the Leases are not listed. */
export type LeaseStates = ReadonlyMap<string, LeaseState> | undefined;

export function nodeView(node: NodeObject, leases: LeaseStates): NodeView {
  const name = node.metadata?.name ?? '';
  const annotations = node.metadata?.annotations ?? undefined;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  const lease = leases?.get(name);
  const report = readApplyReport(annotations);
  return {
    name,
    zone: node.metadata?.labels?.[LABEL.zone] || undefined,
    delay: parseDelayAnnotation(annotations?.[ANNOTATION.reconciliationDelay]),
    applied: annotations?.[ANNOTATION.checksumCloudConfigData] || undefined,
    permitted: annotations?.[PERMITTED_CHECKSUM_ANNOTATION],
    ...(report ? { report } : {}),
    ...(annotations?.[ROLLOUT_FAILURE_ANNOTATION.checksum]
      ? {
          failureMark: {
            checksum: annotations[ROLLOUT_FAILURE_ANNOTATION.checksum]!,
            reason: annotations[ROLLOUT_FAILURE_ANNOTATION.reason] ?? '',
          },
        }
      : {}),
    ready: ready?.status === 'True',
    readySince: ms(ready?.lastTransitionTime),
    leaseFresh: lease?.fresh,
    ...(lease?.observedAt === undefined ? {} : { leaseRenewed: lease.observedAt }),
    ...(lease?.staleSince === undefined ? {} : { leaseStaleSince: lease.staleSince }),
    leaving:
      node.spec?.taints?.some(
        (t) => t.key === TAINT_PREFER_NO_SCHEDULE.key && t.effect === TAINT_PREFER_NO_SCHEDULE.effect,
      ) ?? false,
  };
}

/**
 * Whether a node reads `secret`: a node of the v1.150.0 contract names its OSC secret in the label
 * `worker.gardener.cloud/gardener-node-agent-secret-name` (set by the kubelet's node labels; a new
 * key changes it, gardener v1.150.0 pkg/nodeagent/controller/secretnamechange); a v1.91.4 node
 * has no such label, and its key follows from its pool, Kubernetes minor and CRI.
 */
function readsSecret(node: NodeObject, pool: string, secret: SecretObject | undefined): boolean {
  if (!secret) return true;
  const named = node.metadata?.labels?.[LABEL.nodeAgentSecretName];
  if (named !== undefined) return named === secret.metadata?.name;
  const version = tryParseSemVer(node.metadata?.labels?.[LABEL.kubernetesVersion] ?? '');
  return !version || key(pool, version, node.metadata?.labels?.[LABEL.criName]) === secret.metadata?.name;
}

/**
 * The pools and their nodes: a node belongs to the pool of its `worker.gardener.cloud/pool`
 * label; nodes being deleted and nodes of another key (another Kubernetes minor, CRI or contract:
 * a rolling update replaces them, they read another secret) take no part.
 */
export function observePools(
  pools: readonly string[],
  nodes: readonly NodeObject[],
  secrets: readonly SecretObject[],
  leases: LeaseStates,
): PoolObservation[] {
  return pools.map((pool) => {
    const secret = secrets.find(
      (s) =>
        s.metadata?.labels?.[LABEL.workerPool] === pool &&
        s.metadata?.labels?.[LABEL.gardenerRole] === LABEL_VALUE.roleOperatingSystemConfig,
    );
    const members = nodes.filter(
      (n) =>
        !n.metadata?.deletionTimestamp &&
        n.metadata?.labels?.[LABEL.workerPool] === pool &&
        readsSecret(n, pool, secret),
    );
    return {
      pool,
      target: secret?.metadata?.annotations?.[ANNOTATION.checksumDataScript] || undefined,
      nodes: members.map((n) => nodeView(n, leases)),
    };
  });
}
