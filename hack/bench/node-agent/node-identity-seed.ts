/**
 * What the seed runs for agents with per-node identities, pointed at the benchmark's own API
 * server: the node agent authorizer (the API server asks it about every request of an agent; the
 * rendered RBAC grants agents nothing) and the CSR approver, both the controller-manager's own code
 * over one shoot cache as `controllers/index.ts` wires them, and the signer that stands in for the
 * kube-controller-manager's (test/integration/csr-signer.ts). The agent asks for its identity with
 * the shared ServiceAccount token it has, as a running node switching to its own identity does
 * (docs/security.md).
 */
import { rmSync } from 'node:fs';
import { Registry } from 'prom-client';
import { authorizerUrl } from '../../../charts/controller-manager/authorization-config.js';
import { authorizedShoot } from '../../../controllers/node-agent-authorizer/add.js';
import {
  authorizerMetrics,
  serveNodeAgentAuthorizer,
} from '../../../controllers/node-agent-authorizer/webhook-server.js';
import { addCsrApproverController } from '../../../controllers/node-agent-csr-approver/add.js';
import { EventRecorder } from '../../../runtime/events.js';
import { ClusterCache } from '../../../runtime/kube/cluster-cache.js';
import { KubeClient } from '../../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../../runtime/kube/kube-http.js';
import { silentLogger } from '../../../runtime/logging.js';
import { runtimeMetrics } from '../../../runtime/metrics.js';
import {
  CONTROLLER_MANAGER_API_VERSION,
  CONTROLLER_MANAGER_KIND,
  ControllerManagerConfigurationSchema,
} from '../../../seed/manager/config.js';
import { clusterEventObject, EVENT_COMPONENT } from '../../../seed/manager/context.js';
import { shootCacheTransform } from '../../../seed/manager/shoots.js';
import { servingCertificate, startCsrSigner } from '../../../test/integration/csr-signer.js';
import { type Envtest, type EnvtestOptions, freePort } from '../../../test/integration/envtest.js';
import { type Cleanups, progress } from '../support/run.js';

/** The shoot namespace the authorizer's URL names (the benchmark has one shoot). */
const SHOOT = 'shoot--bench--node-agent';

export interface NodeIdentitySeed {
  /** What the API server must be started with to ask the authorizer. */
  readonly envtest: Pick<EnvtestOptions, 'nodeAgentAuthorizer'>;
  /** Starts the authorizer, the approver and the signer against the started API server. */
  start(env: Envtest): Promise<void>;
}

export async function nodeIdentitySeed(cleanups: Cleanups): Promise<NodeIdentitySeed> {
  const tls = servingCertificate();
  cleanups.push('authorizer serving certificate', () => rmSync(tls.dir, { recursive: true, force: true }));
  const port = await freePort();
  return {
    envtest: {
      nodeAgentAuthorizer: {
        url: authorizerUrl(`https://127.0.0.1:${port}`, SHOOT),
        caPem: tls.caPem,
        token: tls.callerToken(SHOOT),
      },
    },
    async start(env: Envtest): Promise<void> {
      progress('starting the node agent authorizer, the CSR approver and the signer');
      // the controller-manager's defaults (bootstrap window, lifetime cap) as its configuration decodes them
      const defaults = ControllerManagerConfigurationSchema.parse({
        apiVersion: CONTROLLER_MANAGER_API_VERSION,
        kind: CONTROLLER_MANAGER_KIND,
        clusterSelector: { matchLabels: { bench: 'true' } },
      }).nodeAgent;
      const abort = new AbortController();
      const http = new KubeHttp(env.kubeConfig);
      const client = new KubeClient(http);
      const cache = new ClusterCache({ name: SHOOT, http, transform: shootCacheTransform });
      const authorized = authorizedShoot({ cache, client }, defaults.bootstrapWindow);
      const registry = new Registry();
      const server = await serveNodeAgentAuthorizer({
        host: '127.0.0.1',
        port,
        certFile: tls.certFile,
        keyFile: tls.keyFile,
        tokenKeyFile: tls.tokenKeyFile,
        shoot: (namespace) => (namespace === SHOOT ? authorized.shoot : undefined),
        metrics: authorizerMetrics(registry),
        log: silentLogger,
      });
      const approver = addCsrApproverController(
        {
          namespace: SHOOT,
          cluster: () => {
            throw new Error('the benchmark has no Cluster');
          },
          client,
          cache,
          eventObject: clusterEventObject(SHOOT),
          log: silentLogger,
          signal: abort.signal,
        },
        {
          recorder: new EventRecorder({ http, component: EVENT_COMPONENT }),
          metrics: runtimeMetrics(registry),
          log: silentLogger,
        },
        { maxCertificateLifetime: defaults.maxCertificateLifetime },
      );
      cache.start(abort.signal);
      const signer = startCsrSigner(env);
      cleanups.push('authorizer, approver and signer', async () => {
        abort.abort();
        await approver.stopped();
        await server.close();
        await signer.stop();
        await http.close();
      });
      await authorized.synced;
      await approver.synced();
    },
  };
}
