/**
 * Step 4/4, a compromised node: what an attacker with root on a node could do to the rest of the
 * shoot with the credentials the agent has there. For every node, its own identity kubeconfig
 * (from its root) makes real requests against the shoot's kube-apiserver: what the agent needs is
 * allowed, and reading another pool's configuration, changing another Node, tainting,
 * forging Leases and spreading Events are denied, by the node agent authorizer or by the admission
 * policy. The rows and their classification are the permission matrix's
 * (hack/landscape/permission-matrix.ts, docs/security.md).
 */
import { PATH } from '../../../api/index.js';
import { KubeClient } from '../../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../../runtime/kube/kube-http.js';
import { KubeconfigFileAccess } from '../../../runtime/kube/kubeconfig-file.js';
import {
  MATRIX_ROWS,
  type MatrixTarget,
  type Outcome,
  outcomeOf,
} from '../../landscape/permission-matrix.js';
import type { ScenarioNode } from '../scenario-node.js';
import type { NodeResult, ScenarioResult } from '../scenario-result.js';
import type { ScenarioRun } from '../scenario-run.js';
import { poolSecrets } from '../shoot-reads.js';

/**
 * The requests made with each node's identity and what they must give: none of them changes
 * anything the demo relies on (every write is one that is denied).
 */
export const PROBES: readonly { readonly request: string; readonly expected: Outcome }[] = [
  { request: 'get OSC secret of its pool P', expected: 'allowed' },
  { request: 'get+watch its Node A', expected: 'allowed' },
  { request: 'get OSC secret of pool Q', expected: 'denied (authorization)' },
  { request: 'get shared token secret gardener-node-agent', expected: 'denied (authorization)' },
  { request: 'list all secrets in kube-system', expected: 'denied (authorization)' },
  { request: 'label Node A worker.gardener.cloud/pool (not owned)', expected: 'denied (admission)' },
  { request: 'set Ready=False on Node A', expected: 'denied (admission)' },
  {
    request: "set Node A's rollout permission permitted-checksum (the seed's)",
    expected: 'denied (admission)',
  },
  { request: 'annotate Node B (same pool)', expected: 'denied (authorization)' },
  { request: 'report an apply on Node B (same pool)', expected: 'denied (authorization)' },
  { request: 'taint Node B NoExecute', expected: 'denied (authorization)' },
  { request: 'set Ready=False on Node C (pool Q)', expected: 'denied (authorization)' },
  { request: 'list all Nodes', expected: 'denied (authorization)' },
  { request: 'update Lease of Node B', expected: 'denied (authorization)' },
  { request: 'create Lease kube-system/kube-controller-manager-x', expected: 'denied (admission)' },
  { request: 'create an Event in another namespace', expected: 'denied (authorization)' },
  { request: 'list Events in all namespaces', expected: 'denied (authorization)' },
  { request: 'create a ClusterRoleBinding', expected: 'denied (authorization)' },
];

export type CompromisedNodeOutcome = ScenarioResult['limits'] & {
  readonly nodes: ReadonlyMap<string, NodeResult['limits']>;
};

/** Node B: another node, of its pool where the pool has one; node C: a node of another pool. */
function target(
  node: ScenarioNode,
  nodes: readonly ScenarioNode[],
  osc: ReadonlyMap<string, string>,
): MatrixTarget {
  const others = nodes.filter((n) => n !== node);
  const samePool = others.find((n) => n.spec.pool === node.spec.pool);
  const otherPool = others.find((n) => n.spec.pool !== node.spec.pool) ?? others[0];
  const poolQ = [...osc.keys()].find((p) => p !== node.spec.pool) ?? '';
  return {
    nodeA: node.name,
    nodeB: (samePool ?? others[0])?.name ?? '',
    nodeC: otherPool?.name ?? '',
    oscP: osc.get(node.spec.pool) ?? '',
    oscQ: osc.get(poolQ) ?? '',
    otherNamespace: 'kube-public',
  };
}

export async function probeCompromisedNodes(run: ScenarioRun): Promise<CompromisedNodeOutcome> {
  run.heading(
    'limits',
    "4/4 A compromised node: each node's agent credentials against the rest of the shoot",
  );
  const from = Date.now();
  const osc = new Map([...(await poolSecrets(run.landscape)).values()].map((p) => [p.pool, p.name]));
  run.emit(
    'step',
    `with each node's own identity kubeconfig (${PATH.nodeAgentKubeconfig} in its root): ${PROBES.length} requests, what its agent needs and what would harm other nodes`,
  );
  const nodes = new Map<string, NodeResult['limits']>();
  for (const node of run.nodes) {
    const http = new KubeHttp(await KubeconfigFileAccess.load(node.identityKubeconfig()));
    try {
      const client = new KubeClient(http);
      const t = target(node, run.nodes, osc);
      const unexpected: string[] = [];
      for (const probe of PROBES) {
        const row = MATRIX_ROWS.find((r) => r.request === probe.request);
        if (!row) throw new Error(`no permission matrix row "${probe.request}"`);
        const outcome = await outcomeOf(() => row.run(client, t));
        if (outcome !== probe.expected) unexpected.push(`${probe.request}: ${outcome}`);
      }
      const identity = node.identity() ?? '';
      nodes.set(node.name, { identity, probes: PROBES.length, unexpected });
      run.emit(
        'node',
        unexpected.length === 0
          ? `as ${identity}: reads its pool's OSC secret and its Node; ${PROBES.length - 2} requests against other pools, other Nodes, Leases and Events denied`
          : `as ${identity}: NOT as expected: ${unexpected.join('; ')}`,
        node.name,
      );
    } finally {
      await http.close();
    }
  }
  run.phases.limits = { from: run.since(from), to: run.since(Date.now()) };
  return { probes: PROBES.map((p) => `${p.request}: ${p.expected}`), nodes };
}
