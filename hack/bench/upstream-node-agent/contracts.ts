/**
 * The Gardener contracts the upstream-agent benchmark runs, each on a node of its own: the pool's
 * contract and Kubernetes version, and upstream's agent of that contract. v1.91.4 refuses
 * Kubernetes 1.30+ ("unsupported kubernetes version"), so its pool is a 1.29 one; v1.150.0 supports
 * 1.32–1.36, so its pool is at the real kubelet's own version (hack/real-kubelet: 1.34.4).
 */
import { type UpstreamNodeAgent, upstreamNodeAgent } from '../../upstream-node-agent/cache.js';
import { upstreamNodeAgentV150 } from '../../upstream-node-agent-v150/cache.js';

export interface BenchContract {
  /** The pool's Gardener contract and upstream's agent version, e.g. `v1.91.4`. */
  readonly gardenerVersion: string;
  /** The pool's Kubernetes version; undefined: the real kubelet's own. */
  readonly kubernetesVersion: string | undefined;
  /** Upstream's agent of the contract (built when not cached). */
  readonly agent: () => UpstreamNodeAgent;
}

export const CONTRACTS: readonly BenchContract[] = [
  { gardenerVersion: 'v1.91.4', kubernetesVersion: '1.29.8', agent: upstreamNodeAgent },
  { gardenerVersion: 'v1.150.0', kubernetesVersion: undefined, agent: upstreamNodeAgentV150 },
];

/** The `--contract` flag's values: a contract's version, or `both`. */
export const CONTRACT_CHOICES = [...CONTRACTS.map((c) => c.gardenerVersion), 'both'] as const;

export function contractsOf(flag: string): BenchContract[] {
  if (flag === 'both') return [...CONTRACTS];
  const contract = CONTRACTS.find((c) => c.gardenerVersion === flag);
  if (!contract) throw new Error(`--contract takes one of ${CONTRACT_CHOICES.join(', ')}, not ${flag}`);
  return [contract];
}
