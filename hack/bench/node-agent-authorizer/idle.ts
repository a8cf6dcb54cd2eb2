/**
 * What idle agents cost the authorizer: a kube-apiserver from hack/envtest with the structured
 * authorization configuration a shoot gets (decisions cached 5 minutes allowed, 30 seconds
 * denied), the real authorizer over a real shoot cache, and N real agents in this process, each
 * with its own client certificate, its Node and its pool's OSC secret. Once every agent has applied
 * and stamped its Node, the webhook's decisions are counted over the idle window, next to the API
 * requests the agents made in it (the audit log): the difference is what the decision cache saves.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import {
  ANNOTATION,
  LABEL,
  NODE_AGENT_GROUP,
  NODE_AGENT_USER_PREFIX,
  nodeAgentUserName,
  PATH,
  parseGoDuration,
  parseSemVer,
} from '../../../api/index.js';
import { authorizedShoot } from '../../../controllers/node-agent-authorizer/add.js';
import {
  authorizerMetrics,
  serveNodeAgentAuthorizer,
} from '../../../controllers/node-agent-authorizer/webhook-server.js';
import { type RunningAgent, runAgent } from '../../../node-agent/agent/run-agent.js';
import { writeIdentityKubeconfig } from '../../../node-agent/identity/identity-kubeconfig.js';
import { DirectoryImageExtractor } from '../../../node-agent/registry/directory-extractor.js';
import { ClusterCache } from '../../../runtime/kube/cluster-cache.js';
import { KubeClient } from '../../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../../runtime/kube/kube-http.js';
import { silentLogger } from '../../../runtime/logging.js';
import { shootCacheTransform } from '../../../seed/manager/shoots.js';
import { authorizerEndpoint } from '../../landscape/authorizer-endpoint.js';
import type { ServingCertificate } from '../../landscape/csr-signer.js';
import { readAuditEvents, startEnvtest } from '../../landscape/envtest.js';
import { writeImages } from '../../landscape/image-files.js';
import { IMAGE_FILES, oscV1, yamlOf } from '../../landscape/ntv18-fixtures.js';
import { oscSecretObject } from '../../landscape/osc-secret.js';
import { MemorySystemd } from '../../node-agent-doubles/memory-systemd.js';
import { type Cleanups, now, progress } from '../support/run.js';

const SHOOT = 'shoot--bench--idle';
const SECRET = 'gardener-node-agent-bench-12345';

export interface IdleResult {
  readonly agents: number;
  readonly idleSeconds: number;
  /** Webhook decisions in the idle window, by resource. */
  readonly decisions: Record<string, number>;
  /** API requests of the agents in the idle window (audit log, RequestReceived). */
  readonly requests: number;
}

async function decisionsByResource(registry: Registry): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('gardener_osc_node_agent_authorizer_decisions_total')?.get();
  const out: Record<string, number> = {};
  for (const v of metric?.values ?? []) {
    const key = `${v.labels.resource}/${v.labels.decision}`;
    out[key] = (out[key] ?? 0) + v.value;
  }
  return out;
}

export async function measureIdle(o: {
  readonly agents: number;
  readonly idleMs: number;
  readonly tls: ServingCertificate;
  readonly cleanups: Cleanups;
}): Promise<IdleResult> {
  const endpoint = await authorizerEndpoint({ shootNamespace: SHOOT, tls: o.tls });
  const { port } = endpoint;
  const env = await startEnvtest({ name: 'bench-authorizer', ...endpoint.envtest });
  o.cleanups.push('envtest', () => env.stop());
  const abort = new AbortController();
  const http = new KubeHttp(env.kubeConfig);
  const cache = new ClusterCache({ name: SHOOT, http, transform: shootCacheTransform });
  const entry = authorizedShoot({ cache, client: new KubeClient(http) }, 1_800_000);
  cache.start(abort.signal);
  const registry = new Registry();
  const server = await serveNodeAgentAuthorizer({
    host: '127.0.0.1',
    port,
    certFile: o.tls.certFile,
    keyFile: o.tls.keyFile,
    tokenKeyFile: o.tls.tokenKeyFile,
    shoot: (ns) => (ns === SHOOT ? entry.shoot : undefined),
    metrics: authorizerMetrics(registry),
    log: silentLogger,
  });
  o.cleanups.push('authorizer', async () => {
    abort.abort();
    await server.close();
    await http.close();
  });
  await entry.synced;

  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const yaml = yamlOf(oscV1());
  await core.createNamespacedSecret({
    namespace: 'kube-system',
    body: oscSecretObject({ name: SECRET, oscYaml: yaml, pool: 'bench' }),
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-authorizer-'));
  o.cleanups.push('temp dir', () => rmSync(dir, { recursive: true, force: true }));
  const images = writeImages(join(dir, 'images'), IMAGE_FILES);
  const cluster = env.kubeConfig.getCurrentCluster()!;
  const agents: RunningAgent[] = [];
  o.cleanups.push('agents', async () => {
    for (const a of agents) a.stop();
    await Promise.all(agents.map((a) => a.stopped));
  });
  progress(`starting ${o.agents} agents, each with its own client certificate`);
  for (let i = 0; i < o.agents; i++) {
    const node = `idle-${i}`;
    await core.createNode({ body: { metadata: { name: node, labels: { [LABEL.workerPool]: 'bench' } } } });
    const root = join(dir, node);
    mkdirSync(root, { recursive: true });
    const user = (await env.kubeConfigForUser(nodeAgentUserName(node), [NODE_AGENT_GROUP])).getCurrentUser()!;
    await writeIdentityKubeconfig(join(root, PATH.nodeAgentKubeconfig), {
      server: cluster.server,
      caPem: Buffer.from(cluster.caData!, 'base64').toString(),
      certificatePem: Buffer.from(user.certData!, 'base64').toString(),
      keyPem: Buffer.from(user.keyData!, 'base64').toString(),
    });
    agents.push(
      await runAgent({
        config: {
          clientConnection: { kubeconfig: PATH.nodeAgentKubeconfig },
          server: {},
          apiServer: { server: cluster.server, caBundle: cluster.caData },
          controllers: {
            operatingSystemConfig: {
              secretName: SECRET,
              kubernetesVersion: parseSemVer('1.31.2'),
              syncPeriod: parseGoDuration('10m'),
            },
            token: { syncConfigs: [], syncPeriod: parseGoDuration('12h') },
          },
        },
        root,
        systemd: new MemorySystemd(),
        images: new DirectoryImageExtractor(images),
        log: silentLogger,
        env: {},
        nodeName: node,
        healthPort: 0,
        metricsPort: 0,
      }),
    );
  }
  progress('waiting until every agent applied and stamped its Node');
  for (;;) {
    const nodes = await core.listNode();
    const stamped = nodes.items.filter((n) => n.metadata?.annotations?.[ANNOTATION.checksumCloudConfigData]);
    if (stamped.length >= o.agents) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  // one renew interval more, so start-up requests are behind us
  await new Promise((r) => setTimeout(r, 15_000));
  progress(`idle for ${o.idleMs / 1000} s`);
  const before = await decisionsByResource(registry);
  const from = now();
  await new Promise((r) => setTimeout(r, o.idleMs));
  const to = now();
  const after = await decisionsByResource(registry);
  const decisions: Record<string, number> = {};
  for (const [k, v] of Object.entries(after))
    if (v - (before[k] ?? 0) > 0) decisions[k] = v - (before[k] ?? 0);
  const requests = readAuditEvents(env).filter((e) => {
    const at = Date.parse((e as unknown as { requestReceivedTimestamp: string }).requestReceivedTimestamp);
    return (
      e.stage === 'RequestReceived' &&
      e.user.username.startsWith(NODE_AGENT_USER_PREFIX) &&
      at >= from &&
      at < to
    );
  }).length;
  return { agents: o.agents, idleSeconds: (to - from) / 1000, decisions, requests };
}
