/**
 * The authorizer's HTTPS endpoint: answers a SubjectAccessReview with the decision, says 503 for a
 * shoot it does not serve or whose caches are not filled (the API server then denies: fail
 * closed), refuses what is not a review, answers only a caller with its shoot's bearer token,
 * looks a just-created CSR up live, and picks up a renewed serving certificate.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { Agent, request } from 'undici';
import type { NodeAgentWorld } from '../../../controllers/node-agent-authorizer/decide.js';
import {
  authorizerMetrics,
  LEFT_TO_RESOURCE_MANAGER,
  type RunningAuthorizerServer,
  serveNodeAgentAuthorizer,
} from '../../../controllers/node-agent-authorizer/webhook-server.js';
import { type ServingCertificate, servingCertificate } from '../../../hack/landscape/csr-signer.js';
import { silentLogger } from '../../../runtime/logging.js';

const world: NodeAgentWorld = {
  node: (name) => (name === 'node-a' ? { pool: 'p' } : undefined),
  oscSecretNames: () => ['osc-p'],
  tokenSecretNames: [],
  recentlyIssued: () => false,
  nodeWasRegistered: () => false,
  csrRequester: () => undefined,
  podNode: () => undefined,
};

const review = (user: string, resourceAttributes: Record<string, string>) => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SubjectAccessReview',
  spec: { user, groups: ['gardener.cloud:node-agents'], resourceAttributes },
});

describe('node agent authorizer endpoint', () => {
  let tls: ServingCertificate;
  let server: RunningAuthorizerServer;
  let synced = true;
  let acts = true;
  let agent: Agent;
  const registry = new Registry();

  before(async () => {
    tls = servingCertificate();
    agent = new Agent({ connect: { ca: tls.caPem } });
    server = await serveNodeAgentAuthorizer({
      host: '127.0.0.1',
      port: 0,
      certFile: tls.certFile,
      keyFile: tls.keyFile,
      tokenKeyFile: tls.tokenKeyFile,
      shoot: (ns) =>
        ns === 'shoot--a--b'
          ? {
              synced: () => synced,
              world,
              acts: () => acts,
              liveCsrRequester: async (name) =>
                name === 'fresh' ? 'gardener.cloud:node-agent:machine:node-a' : undefined,
              livePodNode: async (namespace, name) =>
                namespace === 'apps' && name === 'web' ? 'node-a' : undefined,
            }
          : undefined,
      metrics: authorizerMetrics(registry),
      log: silentLogger,
      certificateCheckMs: 50,
    });
  });
  after(async () => {
    await server.close();
    await agent.close();
    rmSync(tls.dir, { recursive: true, force: true });
  });

  /** Sends as the kube-apiserver of the shoot the path names (its bearer token; null: no header). */
  const post = async (
    path: string,
    body: unknown,
    method: 'POST' | 'GET' = 'POST',
    token: string | null = tls.callerToken(path.split('/').at(-1) ?? ''),
  ) => {
    const res = await request(`https://127.0.0.1:${server.port}${path}`, {
      method,
      dispatcher: agent,
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
      body: method === 'POST' ? (typeof body === 'string' ? body : JSON.stringify(body)) : undefined,
    });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  };

  it('answers with the decision, echoing the review version', async () => {
    const allowed = await post(
      '/webhooks/auth/nodeagent/shoot--a--b',
      review('gardener.cloud:node-agent:machine:node-a', { verb: 'get', resource: 'nodes', name: 'node-a' }),
    );
    expect(allowed).to.deep.equal({
      status: 200,
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        status: { allowed: true, reason: 'its own Node node-a' },
      },
    });
    const denied = await post(
      '/webhooks/auth/nodeagent/shoot--a--b',
      review('gardener.cloud:node-agent:machine:node-a', { verb: 'get', resource: 'nodes', name: 'node-b' }),
    );
    expect(denied.body.status).to.deep.include({ allowed: false, denied: true });
  });

  it('is unavailable (503) for a shoot it does not serve or has not synced', async () => {
    const r = review('gardener.cloud:node-agent:machine:node-a', {
      verb: 'get',
      resource: 'nodes',
      name: 'node-a',
    });
    expect((await post('/webhooks/auth/nodeagent/shoot--other', r)).status).to.equal(503);
    synced = false;
    try {
      expect((await post('/webhooks/auth/nodeagent/shoot--a--b', r)).status).to.equal(503);
    } finally {
      synced = true;
    }
  });

  it('has no opinion on a shoot left to gardener-resource-manager, so the next authorizer decides', async () => {
    const r = review('gardener.cloud:node-agent:machine:node-a', {
      verb: 'get',
      resource: 'nodes',
      name: 'node-b',
    });
    acts = false;
    synced = false;
    try {
      const answer = await post('/webhooks/auth/nodeagent/shoot--a--b', r);
      expect(answer.status).to.equal(200);
      expect(answer.body.status).to.deep.equal({
        allowed: false,
        reason: LEFT_TO_RESOURCE_MANAGER.reason,
      });
    } finally {
      acts = true;
      synced = true;
    }
    expect((await post('/webhooks/auth/nodeagent/shoot--a--b', r)).body.status).to.deep.include({
      denied: true,
    });
  });

  it("answers only a caller with the shoot's bearer token (401, before any decision)", async () => {
    const r = review('gardener.cloud:node-agent:machine:node-a', {
      verb: 'get',
      resource: 'nodes',
      name: 'node-a',
    });
    const path = '/webhooks/auth/nodeagent/shoot--a--b';
    const before = (
      await registry.getSingleMetric('gardener_osc_node_agent_authorizer_decisions_total')?.get()
    )?.values.length;
    expect(before).to.be.a('number');
    for (const token of [
      null,
      '',
      'guess',
      tls.callerToken('shoot--other'),
      `${tls.callerToken('shoot--a--b')}x`,
    ]) {
      const answer = await post(path, r, 'POST', token);
      expect(answer.status, `token ${token}`).to.equal(401);
      expect(answer.body).not.to.have.property('status');
    }
    const metric = await registry
      .getSingleMetric('gardener_osc_node_agent_authorizer_decisions_total')
      ?.get();
    expect(metric?.values.find((v) => v.labels.decision === 'unauthenticated')?.value).to.equal(5);
    expect((await post(path, r)).status).to.equal(200);
  });

  it('refuses other paths and bodies that are no review', async () => {
    expect((await post('/other', {})).status).to.equal(404);
    expect((await post('/webhooks/auth/nodeagent/shoot--a--b', {}, 'GET')).status).to.equal(404);
    expect((await post('/webhooks/auth/nodeagent/shoot--a--b', 'not json')).status).to.equal(400);
  });

  it('looks up a CSR the cache does not have yet', async () => {
    const csr = (name: string) =>
      post(
        '/webhooks/auth/nodeagent/shoot--a--b',
        review('gardener.cloud:node-agent:machine:node-a', {
          verb: 'get',
          group: 'certificates.k8s.io',
          resource: 'certificatesigningrequests',
          name,
        }),
      );
    expect(((await csr('fresh')).body.status as { allowed: boolean }).allowed).to.equal(true);
    expect(((await csr('unknown')).body.status as { allowed: boolean }).allowed).to.equal(false);
  });

  it('reads the pod of an eviction live: an agent evicts only pods bound to its Node', async () => {
    const evict = (user: string, name: string) =>
      post(
        '/webhooks/auth/nodeagent/shoot--a--b',
        review(user, { verb: 'create', resource: 'pods', subresource: 'eviction', namespace: 'apps', name }),
      );
    const allowed = async (p: ReturnType<typeof evict>) =>
      ((await p).body.status as { allowed: boolean }).allowed;
    expect(await allowed(evict('gardener.cloud:node-agent:machine:node-a', 'web'))).to.equal(true);
    expect(await allowed(evict('gardener.cloud:node-agent:machine:node-b', 'web'))).to.equal(false);
    expect(await allowed(evict('gardener.cloud:node-agent:machine:node-a', 'gone'))).to.equal(false);
  });

  it('serves a renewed certificate without a restart', async () => {
    const renewed = servingCertificate();
    try {
      writeFileSync(tls.certFile, readFileSync(renewed.certFile));
      writeFileSync(tls.keyFile, readFileSync(renewed.keyFile));
      const fresh = new Agent({ connect: { ca: renewed.caPem } });
      try {
        let ok = false;
        for (let i = 0; i < 50 && !ok; i++) {
          await new Promise((r) => setTimeout(r, 50));
          ok = await request(`https://127.0.0.1:${server.port}/webhooks/auth/nodeagent/x`, {
            method: 'POST',
            dispatcher: fresh,
            body: '{}',
          })
            .then(async (res) => {
              await res.body.dump();
              return true;
            })
            .catch(() => false);
        }
        expect(ok, 'a client trusting only the new CA connects').to.equal(true);
      } finally {
        await fresh.close();
      }
    } finally {
      rmSync(renewed.dir, { recursive: true, force: true });
    }
  });
});
