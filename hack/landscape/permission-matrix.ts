/**
 * A permission matrix: one real request per row, made with a subject's own credentials against a
 * real API server (authorization and admission both answer), classified as allowed (the request
 * got past both: success, or a 404/409/422 about the object itself) or denied (403, by the
 * authorizer or by admission, which the table tells apart). The same rows run for every subject,
 * so the table shows what each identity can do side by side.
 */
import { APPLY_REPORT_ANNOTATION, PERMITTED_CHECKSUM_ANNOTATION } from '../../api/index.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeStatusError } from '../../runtime/kube/kube-http.js';
import { collectionPath, RESOURCE, type Resource } from '../../runtime/kube/resource.js';

export type Outcome = 'allowed' | 'denied (authorization)' | 'denied (admission)';

export interface MatrixTarget {
  /** The subject's node (A), another node in its pool (B), a node in another pool (C). */
  readonly nodeA: string;
  readonly nodeB: string;
  readonly nodeC: string;
  /** OSC secrets of the subject's pool (P) and another pool (Q). */
  readonly oscP: string;
  readonly oscQ: string;
  /** A namespace that is neither kube-system nor default. */
  readonly otherNamespace: string;
  /** An Event in `default` about node B, recorded by someone else (for the rows that need it). */
  readonly eventB?: string;
  /** A pod in `otherNamespace` bound to node A, and one bound to node B (for the drain rows). */
  readonly podA?: string;
  readonly podB?: string;
}

export interface MatrixRow {
  readonly request: string;
  run(client: KubeClient, t: MatrixTarget): Promise<unknown>;
}

const SYSTEM = 'kube-system';

async function watchByName(client: KubeClient, r: Resource, name: string, namespace?: string) {
  const response = await client.http.get({
    path: collectionPath(r, namespace),
    query: { watch: 1, fieldSelector: `metadata.name=${name}`, timeoutSeconds: 1 },
  });
  await response.body.dump();
}

/** An eviction as a drain asks for it, dry-run: the pod stays for the next subject's row. */
const evict = (client: KubeClient, namespace: string, name = '') =>
  client.createSubresource(RESOURCE.pod, { namespace, name }, 'eviction', {
    apiVersion: 'policy/v1',
    kind: 'Eviction',
    metadata: { namespace, name },
    deleteOptions: { dryRun: ['All'] },
  });

/**
 * A GET of a kubelet's /configz through the node proxy. The matrix's Nodes have no kubelet behind
 * them, so an authorized request ends in the proxy's own error (a 5xx, or a refused destination):
 * past authorization and admission, which is what the row asks.
 */
async function kubeletThroughProxy(client: KubeClient, node: string) {
  try {
    await (await client.http.get({ path: `/api/v1/nodes/${node}/proxy/configz` })).body.dump();
  } catch (e) {
    // past authorization: any answer but the authorizer's Forbidden Status (the proxy's own
    // `resolve_deny: denied destination` is a plain-text 403 about the Node's address)
    if (e instanceof KubeStatusError && !(e.status === 403 && e.reason === 'Forbidden') && e.status !== 401)
      return;
    throw e;
  }
}

const nodePatch = (client: KubeClient, name: string, patch: unknown, status = false) =>
  client.mergePatch(RESOURCE.node, { name }, patch, status ? { subresource: 'status' } : {});

/** An apply report as the agent writes it on its Node after an apply (api/well-known/rollout.ts). */
const applyReport = {
  metadata: {
    annotations: {
      [APPLY_REPORT_ANNOTATION.checksum]: 'matrix',
      [APPLY_REPORT_ANNOTATION.result]: 'Succeeded',
      [APPLY_REPORT_ANNOTATION.reason]: 'Applied',
      [APPLY_REPORT_ANNOTATION.message]: 'permission matrix',
      [APPLY_REPORT_ANNOTATION.time]: '2026-12-01T00:00:00Z',
    },
  },
};

const secretBody = (name: string, namespace: string) => ({ metadata: { name, namespace }, data: {} });
const leaseBody = (name: string, namespace = SYSTEM) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, namespace },
  spec: { holderIdentity: name, leaseDurationSeconds: 40 },
});
const eventBody = (node: string, namespace = 'default') => ({
  metadata: { name: `${node}.matrix${Date.now().toString(16)}${Math.floor(Math.random() * 1e6)}`, namespace },
  involvedObject: { apiVersion: 'v1', kind: 'Node', name: node },
  reason: 'Matrix',
  message: 'permission matrix',
  type: 'Normal',
});

/** Every row, in the order the table prints them. */
export const MATRIX_ROWS: readonly MatrixRow[] = [
  {
    request: 'get OSC secret of its pool P',
    run: (c, t) => c.get(RESOURCE.secret, { name: t.oscP, namespace: SYSTEM }),
  },
  {
    request: 'list+watch OSC secret of pool P by name',
    run: async (c, t) => {
      await c.list(RESOURCE.secret, { namespace: SYSTEM, fieldSelector: `metadata.name=${t.oscP}` });
      await watchByName(c, RESOURCE.secret, t.oscP, SYSTEM);
    },
  },
  {
    request: 'get OSC secret of pool Q',
    run: (c, t) => c.get(RESOURCE.secret, { name: t.oscQ, namespace: SYSTEM }),
  },
  {
    request: 'get token secret gardener-valitail',
    run: (c) => c.get(RESOURCE.secret, { name: 'gardener-valitail', namespace: SYSTEM }),
  },
  {
    request: 'get shared token secret gardener-node-agent',
    run: (c) => c.get(RESOURCE.secret, { name: 'gardener-node-agent', namespace: SYSTEM }),
  },
  { request: 'list all secrets in kube-system', run: (c) => c.list(RESOURCE.secret, { namespace: SYSTEM }) },
  {
    request: 'get a secret in another namespace',
    run: (c, t) => c.get(RESOURCE.secret, { name: 'x', namespace: t.otherNamespace }),
  },
  {
    request: 'create a secret in kube-system',
    run: (c) => c.create(RESOURCE.secret, secretBody('matrix-created', SYSTEM)),
  },
  {
    request: 'get+watch its Node A',
    run: async (c, t) => {
      await c.get(RESOURCE.node, { name: t.nodeA });
      await watchByName(c, RESOURCE.node, t.nodeA);
    },
  },
  {
    request: 'annotate Node A checksum/cloud-config-data (owned)',
    run: (c, t) =>
      nodePatch(c, t.nodeA, { metadata: { annotations: { 'checksum/cloud-config-data': 'matrix' } } }),
  },
  {
    request: 'report an apply on Node A (owned)',
    run: (c, t) => nodePatch(c, t.nodeA, applyReport),
  },
  {
    request: "set Node A's rollout permission permitted-checksum (the seed's)",
    run: (c, t) =>
      nodePatch(c, t.nodeA, { metadata: { annotations: { [PERMITTED_CHECKSUM_ANNOTATION]: 'matrix' } } }),
  },
  {
    request: 'label Node A worker.gardener.cloud/pool (not owned)',
    run: (c, t) => nodePatch(c, t.nodeA, { metadata: { labels: { 'worker.gardener.cloud/pool': 'other' } } }),
  },
  { request: 'cordon Node A', run: (c, t) => nodePatch(c, t.nodeA, { spec: { unschedulable: true } }) },
  {
    request: 'set Ready=False on Node A',
    run: (c, t) =>
      nodePatch(
        c,
        t.nodeA,
        { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Matrix', message: 'm' }] } },
        true,
      ),
  },
  {
    request: 'write Node A status images (not addresses)',
    run: (c, t) =>
      nodePatch(
        c,
        t.nodeA,
        { status: { images: [{ names: ['registry.example/x:1'], sizeBytes: 1 }] } },
        true,
      ),
  },
  {
    request: 'label Node A worker.gardener.cloud/pool through its status',
    run: (c, t) =>
      nodePatch(c, t.nodeA, { metadata: { labels: { 'worker.gardener.cloud/pool': 'other' } } }, true),
  },
  {
    request: 'write Node A status addresses',
    run: (c, t) =>
      nodePatch(c, t.nodeA, { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.9' }] } }, true),
  },
  {
    request: 'delete Node A',
    run: (c, t) =>
      c.http
        .send('DELETE', { path: `/api/v1/nodes/${t.nodeA}`, query: { dryRun: 'All' } })
        .then((r) => r.body.dump()),
  },
  { request: 'get Node B (same pool)', run: (c, t) => c.get(RESOURCE.node, { name: t.nodeB }) },
  {
    request: 'annotate Node B (same pool)',
    run: (c, t) =>
      nodePatch(c, t.nodeB, { metadata: { annotations: { 'checksum/cloud-config-data': 'matrix' } } }),
  },
  {
    request: 'report an apply on Node B (same pool)',
    run: (c, t) => nodePatch(c, t.nodeB, applyReport),
  },
  {
    request: 'taint Node B NoExecute',
    run: (c, t) => nodePatch(c, t.nodeB, { spec: { taints: [{ key: 'matrix', effect: 'NoExecute' }] } }),
  },
  {
    request: 'set Ready=False on Node C (pool Q)',
    run: (c, t) =>
      nodePatch(
        c,
        t.nodeC,
        { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Matrix', message: 'm' }] } },
        true,
      ),
  },
  { request: 'list all Nodes', run: (c) => c.list(RESOURCE.node) },
  {
    request: 'create+update its Lease gardener-node-agent-A',
    run: async (c, t) => {
      const created = await c
        .create(RESOURCE.lease, leaseBody(`gardener-node-agent-${t.nodeA}`))
        .catch(async (e) => {
          if (!isApiStatus(e, 409)) throw e;
          return c.get<ReturnType<typeof leaseBody>>(RESOURCE.lease, {
            name: `gardener-node-agent-${t.nodeA}`,
            namespace: SYSTEM,
          });
        });
      await c.update(RESOURCE.lease, created);
    },
  },
  {
    request: 'update Lease of Node B',
    run: (c, t) => c.update(RESOURCE.lease, leaseBody(`gardener-node-agent-${t.nodeB}`)),
  },
  {
    request: 'create Lease kube-system/kube-controller-manager-x',
    run: (c) => c.create(RESOURCE.lease, leaseBody('kube-controller-manager-x')),
  },
  {
    request: 'create a Lease in another namespace',
    run: (c, t) => c.create(RESOURCE.lease, leaseBody(`gardener-node-agent-${t.nodeA}`, t.otherNamespace)),
  },
  { request: 'create an Event about Node A', run: (c, t) => c.create(RESOURCE.event, eventBody(t.nodeA)) },
  { request: 'create an Event about Node B', run: (c, t) => c.create(RESOURCE.event, eventBody(t.nodeB)) },
  {
    request: 'rewrite an Event about Node B into one about Node A',
    run: (c, t) => {
      if (!t.eventB) throw new Error('this row needs an Event about node B (MatrixTarget.eventB)');
      return c.mergePatch(
        RESOURCE.event,
        { name: t.eventB, namespace: 'default' },
        {
          involvedObject: { name: t.nodeA },
        },
      );
    },
  },
  {
    request: 'create an Event in another namespace',
    run: (c, t) => c.create(RESOURCE.event, eventBody(t.nodeA, t.otherNamespace)),
  },
  { request: 'list Events in all namespaces', run: (c) => c.list(RESOURCE.event) },
  {
    request: 'create a CertificateSigningRequest',
    run: (c) => c.create(RESOURCE.certificateSigningRequest, { metadata: { name: 'matrix' }, spec: {} }),
  },
  { request: 'list all CertificateSigningRequests', run: (c) => c.list(RESOURCE.certificateSigningRequest) },
  {
    request: 'list the pods of Node A',
    run: (c, t) => c.list(RESOURCE.pod, { fieldSelector: `spec.nodeName=${t.nodeA}` }),
  },
  { request: 'list all pods', run: (c) => c.list(RESOURCE.pod) },
  {
    request: "read Node A's kubelet /configz through the node proxy",
    run: (c, t) => kubeletThroughProxy(c, t.nodeA),
  },
  {
    request: "read Node B's kubelet /configz through the node proxy",
    run: (c, t) => kubeletThroughProxy(c, t.nodeB),
  },
  { request: 'evict a pod of Node A', run: (c, t) => evict(c, t.otherNamespace, t.podA) },
  { request: 'evict a pod of Node B', run: (c, t) => evict(c, t.otherNamespace, t.podB) },
  { request: 'list namespaces', run: (c) => c.list(RESOURCE.namespace) },
  {
    request: 'get a ConfigMap in kube-system',
    run: (c) => c.get(RESOURCE.configMap, { name: 'x', namespace: SYSTEM }),
  },
  {
    request: 'create a ClusterRoleBinding',
    run: (c) =>
      c.create(RESOURCE.clusterRoleBinding, {
        metadata: { name: 'matrix' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [],
      }),
  },
];

export async function outcomeOf(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    await run();
    return 'allowed';
  } catch (e) {
    if (!(e instanceof KubeStatusError)) throw e;
    if (e.status === 403)
      return /ValidatingAdmissionPolicy|admission/i.test(e.message)
        ? 'denied (admission)'
        : 'denied (authorization)';
    // the request was authorized and admitted; the object itself was missing, present or invalid
    if ([404, 409, 422].includes(e.status)) return 'allowed';
    throw e;
  }
}

export interface MatrixResult {
  readonly subject: string;
  readonly request: string;
  readonly outcome: Outcome;
}

export async function runMatrix(
  subject: string,
  client: KubeClient,
  t: MatrixTarget,
): Promise<MatrixResult[]> {
  const results: MatrixResult[] = [];
  for (const row of MATRIX_ROWS)
    results.push({ subject, request: row.request, outcome: await outcomeOf(() => row.run(client, t)) });
  return results;
}

/** One table, a column per subject. */
export function formatMatrix(
  title: string,
  subjects: readonly string[],
  results: readonly MatrixResult[],
): string {
  const cell = (subject: string, request: string) =>
    results.find((r) => r.subject === subject && r.request === request)?.outcome ?? '';
  const width = Math.max(...MATRIX_ROWS.map((r) => r.request.length));
  const widths = subjects.map((s) => Math.max(s.length, 22));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(i === 0 ? width : widths[i - 1]!)).join(' | ')} |`;
  return [
    title,
    line(['request', ...subjects]),
    line(['-'.repeat(width), ...widths.map((w) => '-'.repeat(w))]),
    ...MATRIX_ROWS.map((r) => line([r.request, ...subjects.map((s) => cell(s, r.request))])),
  ].join('\n');
}
