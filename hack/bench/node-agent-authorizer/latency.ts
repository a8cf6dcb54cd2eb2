/**
 * Decision latency of the node agent authorizer: its real HTTPS endpoint and decision over the
 * world of a 300-node shoot (3 pools, every node with its Lease, CSRs of the bootstrap window),
 * driven at a fixed rate by a load generator in its own process with the mix of reviews an
 * agent fleet sends (mostly allowed, some denied). Baseline in the same run: an HTTPS server on
 * the same certificate that reads each review and answers a constant one, so the ratio is the
 * price of parsing and deciding over the transport alone.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Registry } from 'prom-client';
import type { NodeObject, SecretObject } from '../../../api/index.js';
import { LABEL, LABEL_VALUE, NODE_AGENT_GROUP, nodeAgentUserName } from '../../../api/index.js';
import type { AccessReviewSpec } from '../../../controllers/node-agent-authorizer/decide.js';
import {
  authorizerMetrics,
  serveNodeAgentAuthorizer,
} from '../../../controllers/node-agent-authorizer/webhook-server.js';
import { shootWorld } from '../../../controllers/node-agent-authorizer/world.js';
import type { Informer } from '../../../runtime/kube/informer.js';
import { silentLogger } from '../../../runtime/logging.js';
import { type CsrObject, NodeAgentCsrIndex } from '../../../seed/node-identity/node-agent-csr.js';
import type { ServingCertificate } from '../../landscape/csr-signer.js';

const run = promisify(execFile);
const NODES = 300;
const POOLS = ['p1', 'p2', 'p3'];
const SHOOT = 'shoot--bench--authorizer';

/** What the world reads of an informer. */
function stubInformer<T extends { metadata?: { name?: string } }>(objects: readonly T[]): Informer<T> {
  const byName = new Map(objects.map((o) => [o.metadata?.name ?? '', o]));
  return {
    get: (name: string) => byName.get(name),
    list: () => [...byName.values()],
  } as unknown as Informer<T>;
}

export function benchWorld() {
  const nodes: NodeObject[] = Array.from({ length: NODES }, (_, i) => ({
    metadata: { name: `node-${i}`, labels: { [LABEL.workerPool]: POOLS[i % POOLS.length]! } },
  }));
  const secrets: SecretObject[] = POOLS.map((p) => ({
    metadata: {
      name: `gardener-node-agent-${p}-12345`,
      labels: { [LABEL.gardenerRole]: LABEL_VALUE.roleOperatingSystemConfig, [LABEL.workerPool]: p },
    },
  }));
  const csrs = stubInformer<CsrObject>([]);
  return shootWorld({
    nodes: stubInformer(nodes),
    oscSecrets: stubInformer(secrets),
    csrs,
    csrIndex: new NodeAgentCsrIndex(csrs),
    bootstrapWindowMs: 1_800_000,
  });
}

/** The reviews an agent fleet sends, with a share of denials, as the kube-apiserver writes them. */
export function reviewMix(count: number): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const n = (i * 7919) % NODES;
    const node = `node-${n}`;
    const pool = POOLS[n % POOLS.length]!;
    const other = `node-${(n + 1) % NODES}`;
    const attributes: AccessReviewSpec['resourceAttributes'][] = [
      {
        verb: 'update',
        group: 'coordination.k8s.io',
        version: 'v1',
        resource: 'leases',
        namespace: 'kube-system',
        name: `gardener-node-agent-${node}`,
      },
      {
        verb: 'watch',
        version: 'v1',
        resource: 'secrets',
        namespace: 'kube-system',
        name: `gardener-node-agent-${pool}-12345`,
        fieldSelector: {
          requirements: [
            { key: 'metadata.name', operator: 'In', values: [`gardener-node-agent-${pool}-12345`] },
          ],
        },
      },
      { verb: 'get', version: 'v1', resource: 'nodes', name: node },
      { verb: 'patch', version: 'v1', resource: 'nodes', name: node },
      { verb: 'create', version: 'v1', resource: 'events', namespace: 'default' },
      { verb: 'get', version: 'v1', resource: 'nodes', name: other },
      {
        verb: 'get',
        version: 'v1',
        resource: 'secrets',
        namespace: 'kube-system',
        name: 'gardener-node-agent-p9-12345',
      },
      { verb: 'list', version: 'v1', resource: 'pods' },
    ];
    out.push({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: nodeAgentUserName(node),
        groups: [NODE_AGENT_GROUP, 'system:authenticated'],
        resourceAttributes: attributes[i % attributes.length],
      },
    });
  }
  return out;
}

export interface LatencyResult {
  readonly variant: 'authorizer' | 'baseline';
  readonly rate: number;
  readonly latencies: number[];
  readonly failures: number;
  /** Inside the authorizer: from the complete request body to the answer written (ms). */
  readonly server: number[];
  /** The 1-minute load average when the round ended. */
  readonly load: number;
}

async function baselineServer(tls: ServingCertificate) {
  const { readFileSync } = await import('node:fs');
  const answer = JSON.stringify({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    status: { allowed: true, reason: 'baseline' },
  });
  const server = createServer(
    { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(answer),
        });
        res.end(answer);
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/auth/nodeagent/${SHOOT}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export async function measureLatency(o: {
  readonly variant: 'authorizer' | 'baseline';
  readonly rate: number;
  readonly seconds: number;
  readonly tls: ServingCertificate;
  readonly reviewsFile: string;
}): Promise<LatencyResult> {
  let url: string;
  let close: () => Promise<void>;
  const server: number[] = [];
  if (o.variant === 'authorizer') {
    const world = benchWorld();
    // the real counters, and every decision's duration kept (the histogram's buckets are coarse)
    const metrics = {
      decisions: authorizerMetrics(new Registry()).decisions,
      duration: { observe: (seconds: number) => server.push(seconds * 1000) },
    } as unknown as ReturnType<typeof authorizerMetrics>;
    const endpoint = await serveNodeAgentAuthorizer({
      host: '127.0.0.1',
      port: 0,
      certFile: o.tls.certFile,
      keyFile: o.tls.keyFile,
      tokenKeyFile: o.tls.tokenKeyFile,
      shoot: (ns) => (ns === SHOOT ? { synced: () => true, world } : undefined),
      metrics,
      log: silentLogger,
    });
    url = `${endpoint.url}${SHOOT}`;
    close = endpoint.close;
  } else {
    ({ url, close } = await baselineServer(o.tls));
  }
  try {
    const { writeFileSync } = await import('node:fs');
    const caFile = join(o.tls.dir, 'ca.crt');
    writeFileSync(caFile, o.tls.caPem);
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        join(import.meta.dirname, 'load.ts'),
        url,
        caFile,
        o.reviewsFile,
        String(o.rate),
        String(o.seconds),
      ],
      // the shoot's bearer token, as its kube-apiserver sends it (the baseline server ignores it)
      { maxBuffer: 1 << 28, env: { ...process.env, AUTHORIZER_TOKEN: o.tls.callerToken(SHOOT) } },
    );
    const parsed = JSON.parse(stdout) as { latencies: number[]; failures: number };
    return { variant: o.variant, rate: o.rate, ...parsed, server, load: loadavg()[0]! };
  } finally {
    await close();
  }
}
