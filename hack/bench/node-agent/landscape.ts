/**
 * The agent's world before it starts: a kube-apiserver with an audit log (with per-node
 * identities, one that asks the node agent authorizer: node-identity-seed.ts), what the seed would
 * have deployed for one node (the rendered RBAC and admission policy, the OSC secret of the
 * example's first pool with a probe unit, the access-token secrets, the Node of that pool with
 * delay 0), the host root with the agent's token and image files, and the bench's own watches of
 * the OSC secret and the Node, which tell when an update is visible to any watcher and when the
 * agent says it is done.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KubernetesObjectApi, type V1Node, type V1Secret } from '@kubernetes/client-node';
import {
  ANNOTATION,
  LABEL,
  NODE_AGENT_IDENTITY,
  nodeAgentConfigFilePathV150,
  nodeAgentUserName,
  type OperatingSystemConfig,
  PATH,
  parseYaml,
  readApplyReport,
  stringifyYaml,
} from '../../../api/index.js';
import { DEFAULT_NOW, EXAMPLE_VALUES, render } from '../../../cli/render-command.js';
import { Informer } from '../../../runtime/kube/informer.js';
import { KubeHttp } from '../../../runtime/kube/kube-http.js';
import { type Envtest, startEnvtest, stopAllEnvtests } from '../../landscape/envtest.js';
import { oscSecretObject } from '../../landscape/osc-secret.js';
import type { Cleanups } from '../support/run.js';
import { now, print, progress } from '../support/run.js';
import { AdminApi } from './admin-api.js';
import { changes } from './agent-process.js';
import { type BenchPool, POOL_V191, poolDir } from './bench-pool.js';
import { atomicWrites } from './calibrations.js';
import type { NodeIdentitySeed } from './node-identity-seed.js';
import { OPTIONS } from './options.js';
import { PROBE_UNIT, withProbe } from './osc-probe.js';
import { RecordWatcher } from './record-watcher.js';

export const SECRETS_PATH = '/api/v1/namespaces/kube-system/secrets';

export interface Cluster {
  readonly env: Envtest;
  readonly api: AdminApi;
}

/**
 * A kube-apiserver + etcd of our own: request counts need its audit log. With per-node identities
 * it asks the seed's node agent authorizer, which starts with it.
 */
export async function startApiServer(cleanups: Cleanups, identitySeed?: NodeIdentitySeed): Promise<Cluster> {
  progress('starting kube-apiserver + etcd');
  cleanups.push('envtest', () => stopAllEnvtests());
  const env = await startEnvtest({ name: 'bench-node-agent', ...identitySeed?.envtest });
  await identitySeed?.start(env);
  print(
    `kube-apiserver ${env.version.gitVersion} + etcd (hack/envtest), audit level Metadata` +
      (identitySeed ? ', agents authorized by the node agent authorizer' : ''),
  );
  const api = new AdminApi(env, OPTIONS.concurrency + 4);
  cleanups.push('admin client', () => api.close());
  return { env, api };
}

/** The node the agent runs for, and what it is told to apply; `next()` changes the probe unit. */
export interface NodeUnderTest {
  readonly nodeName: string;
  readonly secretName: string;
  /** Who the agent is to the API server (its own identity, or the shared ServiceAccount). */
  readonly username: string;
  /** Every user the agent's requests come as: with its own identity, also the token it asks with. */
  readonly usernames: readonly string[];
  /** The agent's files: root, images, config, the systemd record. */
  readonly root: string;
  readonly images: string;
  readonly config: string;
  readonly recorder: RecordWatcher;
  /** A small atomic write on this disk, as the agent does them (calibration). */
  readonly fsyncTimes: number[];
  /** The OSC text as last written to the secret. */
  currentText: string;
  generation: number;
  readonly osc: OperatingSystemConfig;
  readonly pool: BenchPool;
}

/** What the seed would have deployed for one node of `pool`, and the node's root. */
export async function deployWhatTheSeedDeploys(
  cluster: Cluster,
  runDir: string,
  runId: string,
  cleanups: Cleanups,
  pool: BenchPool = POOL_V191,
): Promise<NodeUnderTest> {
  const { env, api } = cluster;
  const dir = poolDir(runDir, pool);
  mkdirSync(dir, { recursive: true });
  const objects = KubernetesObjectApi.makeApiClient(env.kubeConfig);
  const rendered = render({
    target: 'shoot',
    now: DEFAULT_NOW,
    nodeAgentIdentity: OPTIONS.identity,
    ...(pool.clusterFile ? { cluster: pool.clusterFile, values: EXAMPLE_VALUES } : {}),
    gardenerVersion: pool.gardenerVersion,
  }).objects as unknown as {
    apiVersion: string;
    kind: string;
    metadata: {
      name: string;
      namespace?: string;
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    };
    data?: Record<string, string>;
  }[];
  const authorization = (o: { apiVersion: string }) =>
    o.apiVersion.startsWith('rbac.') || o.apiVersion.startsWith('admissionregistration.');
  for (const o of pool.deployAuthorization ? rendered.filter(authorization) : []) {
    await objects.patch(
      o as never,
      undefined,
      undefined,
      'bench',
      true,
      'application/apply-patch+yaml' as never,
    );
    cleanups.push(`${o.kind} ${o.metadata.name}`, () => objects.delete(o as never));
  }
  const oscSecret = rendered.find(
    (o) => o.kind === 'Secret' && o.metadata.name.startsWith('gardener-node-agent-'),
  )!;
  const secretName = oscSecret.metadata.name;
  const osc = parseYaml(
    Buffer.from(oscSecret.data!['osc.yaml']!, 'base64').toString('utf8'),
  ) as OperatingSystemConfig;
  const configPath =
    pool.gardenerVersion === 'v1.150.0'
      ? nodeAgentConfigFilePathV150(pool.gardenerVersion)
      : PATH.nodeAgentConfig;
  const configFile = osc.spec.files?.find((f) => f.path === configPath);
  if (!configFile?.content.inline) throw new Error(`the rendered OSC has no inline ${configPath}`);
  const inline = configFile.content.inline;
  const agentConfig = parseYaml(
    Buffer.from(inline.data, inline.encoding === 'b64' ? 'base64' : 'utf8').toString('utf8'),
  ) as {
    apiServer: Record<string, unknown>;
    controllers: { token: { syncConfigs: { secretName: string; path: string }[] } };
  };
  const server = env.kubeConfig.getCurrentCluster()!;
  // the bench's API server and its CA inline; v1.150's caFile stays, so the contract is still
  // decided from the file (the caBundle wins over it: node-agent/cli/ca-file.ts)
  agentConfig.apiServer = { ...agentConfig.apiServer, server: server.server, caBundle: server.caData };
  const units = [...(osc.spec.units ?? []), ...(osc.status?.extensionUnits ?? [])].length + 1;
  const files = [...(osc.spec.files ?? []), ...(osc.status?.extensionFiles ?? [])];

  const saName = 'gardener-node-agent';
  const expiration = Math.max(3600, Math.ceil((OPTIONS.windowMs + 2 * 3600_000) / 1000));
  const saConfig = await env.kubeConfigForServiceAccount('kube-system', saName, expiration);
  cleanups.push('service account', () =>
    api.call('DELETE', `/api/v1/namespaces/kube-system/serviceaccounts/${saName}`),
  );
  const saToken = saConfig.getCurrentUser()?.token ?? '';
  const saUsername = `system:serviceaccount:kube-system:${saName}`;
  const nodeName = `bench-node-agent${pool.nodeSuffix}-${runId}`;
  // with its own identity the agent asks for it with the shared token, as a running node switching
  const username = OPTIONS.identity === NODE_AGENT_IDENTITY.node ? nodeAgentUserName(nodeName) : saUsername;

  const createSecret = async (
    name: string,
    data: Record<string, string>,
    annotations = {},
    labels: Record<string, string> = {},
  ) => {
    // the token secrets of both pools are the same shoot's: deployed once
    if ((await api.call('GET', `${SECRETS_PATH}/${name}`)).status === 200) return;
    await api.must('POST', SECRETS_PATH, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, annotations, labels },
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    });
    cleanups.push(`secret ${name}`, () => api.call('DELETE', `${SECRETS_PATH}/${name}`));
  };
  for (const sync of agentConfig.controllers.token.syncConfigs)
    await createSecret(sync.secretName, {
      token: sync.secretName === saName ? saToken : `${sync.secretName}-token`,
    });
  const currentText = withProbe(osc, 0);
  await api.must(
    'POST',
    SECRETS_PATH,
    oscSecretObject({ name: secretName, oscYaml: currentText, labels: oscSecret.metadata.labels ?? {} }),
  );
  cleanups.push(`secret ${secretName}`, () => api.call('DELETE', `${SECRETS_PATH}/${secretName}`));
  const workerPool = oscSecret.metadata.labels?.[LABEL.workerPool];
  await api.must('POST', '/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: nodeName,
      // the authorizer lets an agent read the OSC secret of its own Node's pool
      labels: {
        [LABEL.hostname]: nodeName,
        ...(workerPool ? { [LABEL.workerPool]: workerPool } : {}),
        ...pool.nodeLabels,
      },
      annotations: { [ANNOTATION.reconciliationDelay]: '0s' },
    },
  });
  cleanups.push(`node ${nodeName}`, () => api.call('DELETE', `/api/v1/nodes/${nodeName}`));
  cleanups.push('lease and events of the agent', async () => {
    await api.call(
      'DELETE',
      `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/gardener-node-agent-${nodeName}`,
    );
    await api.call(
      'DELETE',
      `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${nodeName}`)}`,
    );
  });

  // the host root, image files, config
  const root = join(dir, 'root');
  const images = join(dir, 'images');
  mkdirSync(join(root, dirname(PATH.nodeAgentToken)), { recursive: true });
  writeFileSync(join(root, PATH.nodeAgentToken), saToken, { mode: 0o600 });
  for (const f of files) {
    const ref = f.content.imageRef;
    if (!ref) continue;
    const path = join(images, encodeURIComponent(ref.image), ref.filePathInImage);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `#!/bin/sh\n# stand-in for ${ref.filePathInImage} of ${ref.image}\n`);
  }
  progress('calibration: atomic writes with fsync');
  const fsyncTimes = await atomicWrites(dir, 50);
  const config = join(dir, 'config.yaml');
  writeFileSync(config, stringifyYaml(agentConfig));
  const recorder = new RecordWatcher(join(dir, 'systemd.jsonl'));
  cleanups.push('record watcher', () => recorder.close());
  print(
    `OSC (${pool.gardenerVersion}): the rendered ${secretName} (${units} units incl. the probe, ${files.length} files, ` +
      `${files.filter((f) => f.content.imageRef).length} from images) with ${PROBE_UNIT} added; ` +
      (OPTIONS.identity === NODE_AGENT_IDENTITY.node
        ? `agent identity ${username}, asked for with the token of ${saUsername}`
        : `agent identity ${username} bound by the rendered RBAC`) +
      `; ${agentConfig.controllers.token.syncConfigs.length} token secrets`,
  );
  return {
    nodeName,
    secretName,
    username,
    usernames: username === saUsername ? [username] : [username, saUsername],
    root,
    images,
    config,
    recorder,
    fsyncTimes,
    currentText,
    generation: 0,
    osc,
    pool,
  };
}

/** When the bench itself, as any watcher, saw each checksum on the secret and on the Node. */
export interface Bystander {
  readonly secretSeen: Map<string, number>;
  readonly nodeSeen: Map<string, number>;
  /**
   * When the Node first carried the agent's verdict on each checksum (its apply report after the
   * settle time: Succeeded or Failed, no longer Verifying).
   */
  readonly verdictSeen: Map<string, number>;
}

export async function watchAsABystander(
  cluster: Cluster,
  node: NodeUnderTest,
  cleanups: Cleanups,
): Promise<Bystander> {
  const adminHttp = new KubeHttp(cluster.env.kubeConfig);
  cleanups.push('bench watch client', () => adminHttp.close());
  // aborted before the client closes: closing waits for open requests, and a watch lasts minutes
  const benchSignal = new AbortController();
  cleanups.push('bench watches', () => benchSignal.abort());
  const secretSeen = new Map<string, number>();
  const nodeSeen = new Map<string, number>();
  const recordSecret = (s: V1Secret) => {
    const checksum = s.metadata?.annotations?.[ANNOTATION.checksumDataScript];
    if (checksum && !secretSeen.has(checksum)) secretSeen.set(checksum, now());
    changes.notify();
  };
  const verdictSeen = new Map<string, number>();
  const recordNode = (n: V1Node) => {
    const checksum = n.metadata?.annotations?.[ANNOTATION.checksumCloudConfigData];
    if (checksum && !nodeSeen.has(checksum)) nodeSeen.set(checksum, now());
    const report = readApplyReport(n.metadata?.annotations);
    if (report && report.result !== 'Verifying' && !verdictSeen.has(report.checksum))
      verdictSeen.set(report.checksum, now());
    changes.notify();
  };
  const secrets = new Informer<V1Secret>({
    http: adminHttp,
    path: SECRETS_PATH,
    fieldSelector: `metadata.name=${node.secretName}`,
  }).on({ add: recordSecret, update: (_p, s) => recordSecret(s) });
  const nodes = new Informer<V1Node>({
    http: adminHttp,
    path: '/api/v1/nodes',
    fieldSelector: `metadata.name=${node.nodeName}`,
  }).on({ add: recordNode, update: (_p, n) => recordNode(n) });
  secrets.start(benchSignal.signal);
  nodes.start(benchSignal.signal);
  await Promise.all([secrets.waitForSync(), nodes.waitForSync()]);
  return { secretSeen, nodeSeen, verdictSeen };
}
