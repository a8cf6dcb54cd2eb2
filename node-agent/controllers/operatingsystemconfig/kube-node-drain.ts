/**
 * The agent's NodeDrain (node-agent/applier/node-drain.ts) for its own Node, as `kubectl drain`
 * does it (k8s.io/kubectl pkg/drain/drain.go): cordon, then evict every pod bound to the node
 * through the Eviction API (policy/v1), skipping mirror pods, DaemonSet pods and finished pods; an
 * eviction a PodDisruptionBudget refuses (429) is retried until it is allowed or the timeout ends
 * the apply (its progress kept: the next apply resumes the drain). After the unit commands it waits
 * for the Node's Ready condition and uncordons, but only a cordon it made itself (the annotation
 * `node-configuration.gardener.cloud/cordoned-by-agent`): an operator's cordon stays.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { CORDONED_BY_AGENT_ANNOTATION } from '../../../api/index.js';
import { isApiStatus } from '../../../runtime/kube/api-status.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../../runtime/kube/resource.js';
import type { NodeDrain } from '../../applier/node-drain.js';

export { CORDONED_BY_AGENT_ANNOTATION };

export interface KubeNodeDrainOptions {
  /** Between rounds of evictions and readiness checks (default 5 s). */
  readonly retryMs?: number;
  /** How long the pods may take to be evicted, PodDisruptionBudgets included (default 10 min). */
  readonly evictTimeoutMs?: number;
  /** How long evicted pods may take to go (default 2 min); then the drain goes on. */
  readonly terminatingTimeoutMs?: number;
  /** How long the node may take to be Ready after the restarts (default 5 min). */
  readonly readyTimeoutMs?: number;
}

type Client = Pick<KubeClient, 'get' | 'list' | 'mergePatch' | 'createSubresource'>;

const isMirror = (p: V1Pod) => p.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined;
const isDaemonSetPod = (p: V1Pod) => (p.metadata?.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet');
const isFinished = (p: V1Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
const podName = (p: V1Pod) => `${p.metadata?.namespace}/${p.metadata?.name}`;

export function kubeNodeDrain(client: Client, nodeName: string, o: KubeNodeDrainOptions = {}): NodeDrain {
  const retryMs = o.retryMs ?? 5_000;
  const pods = async (signal?: AbortSignal) =>
    (await client.list<V1Pod>(RESOURCE.pod, { fieldSelector: `spec.nodeName=${nodeName}` }, signal)).filter(
      (p) => !isMirror(p) && !isDaemonSetPod(p) && !isFinished(p),
    );

  async function until(
    what: string,
    timeoutMs: number,
    done: () => Promise<string | undefined>,
    signal?: AbortSignal,
  ) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const waiting = await done();
      if (waiting === undefined) return;
      if (Date.now() >= deadline) throw new Error(`${what} of node ${nodeName} timed out: ${waiting}`);
      await sleep(retryMs, undefined, { signal });
    }
  }

  return {
    async cordon(signal) {
      const node = await client.get<V1Node>(RESOURCE.node, { name: nodeName }, signal);
      if (node.spec?.unschedulable) return; // cordoned already: by an operator, or by this step before a crash
      await client.mergePatch(
        RESOURCE.node,
        { name: nodeName },
        {
          metadata: { annotations: { [CORDONED_BY_AGENT_ANNOTATION]: 'true' } },
          spec: { unschedulable: true },
        },
        { signal },
      );
    },

    async evictPods(signal) {
      await until(
        'evicting the pods',
        o.evictTimeoutMs ?? 600_000,
        async () => {
          const blocked: string[] = [];
          for (const pod of (await pods(signal)).filter((p) => !p.metadata?.deletionTimestamp)) {
            const ref = { name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '' };
            const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: ref };
            try {
              await client.createSubresource(RESOURCE.pod, ref, 'eviction', eviction, { signal });
            } catch (e) {
              if (isApiStatus(e, 404)) continue;
              // a PodDisruptionBudget allows no disruption now (or is not yet observed)
              if (isApiStatus(e, 429)) blocked.push(podName(pod));
              else throw e;
            }
          }
          return blocked.length > 0 ? `${blocked.join(', ')} blocked by a PodDisruptionBudget` : undefined;
        },
        signal,
      );
      await until(
        'waiting for evicted pods to go',
        o.terminatingTimeoutMs ?? 120_000,
        async () => {
          const left = await pods(signal);
          return left.length > 0 ? `${left.map(podName).join(', ')} still terminating` : undefined;
        },
        signal,
      ).catch((e: unknown) => {
        if (signal?.aborted) throw e;
        // terminating pods hold no PodDisruptionBudget any more; the restart may go on
      });
    },

    async waitReady(signal) {
      await until(
        'waiting for Ready',
        o.readyTimeoutMs ?? 300_000,
        async () => {
          const node = await client.get<V1Node>(RESOURCE.node, { name: nodeName }, signal);
          const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
          return ready?.status === 'True' ? undefined : `Ready is ${ready?.status ?? 'unknown'}`;
        },
        signal,
      );
    },

    async uncordon(signal) {
      const node = await client.get<V1Node>(RESOURCE.node, { name: nodeName }, signal);
      if (node.metadata?.annotations?.[CORDONED_BY_AGENT_ANNOTATION] === undefined) return;
      await client.mergePatch(
        RESOURCE.node,
        { name: nodeName },
        {
          metadata: { annotations: { [CORDONED_BY_AGENT_ANNOTATION]: null } },
          spec: { unschedulable: null },
        },
        { signal },
      );
    },
  };
}
