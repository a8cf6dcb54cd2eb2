/**
 * What the authorizer's world says of identities without a Node: the bootstrap window counts from
 * the first approval of an identity for that name (a later approval does not start it again), and
 * a Node that existed and is gone (deleted while watched, or implied by an approval only a
 * registered Node gets) leaves its identity nothing.
 */
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import type { NodeObject, SecretObject } from '../../../api/index.js';
import { watchGoneNodes } from '../../../controllers/node-agent-authorizer/gone-nodes.js';
import { shootWorld } from '../../../controllers/node-agent-authorizer/world.js';
import type { Informer, InformerHandlers } from '../../../runtime/kube/informer.js';
import { pem } from '../../../runtime/pki/der.js';
import { createCertificationRequest } from '../../../runtime/pki/pkcs10.js';
import { type CsrObject, NodeAgentCsrIndex } from '../../../seed/node-identity/node-agent-csr.js';

const WINDOW_MS = 30 * 60_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

function approvedCsr(name: string, node: string, requester: string, approvedAtMs: number): CsrObject {
  const request = createCertificationRequest(
    {
      commonName: `gardener.cloud:node-agent:machine:${node}`,
      organizations: ['gardener.cloud:node-agents'],
    },
    generateKeyPairSync('ec', { namedCurve: 'prime256v1' }),
  );
  return {
    metadata: { name, resourceVersion: '1', creationTimestamp: iso(approvedAtMs - 1000) },
    spec: {
      request: Buffer.from(pem('CERTIFICATE REQUEST', request)).toString('base64'),
      signerName: 'kubernetes.io/kube-apiserver-client',
      username: requester,
      usages: ['digital signature', 'client auth'],
      expirationSeconds: 2_592_000,
    },
    status: { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: iso(approvedAtMs) }] },
  };
}

/** An informer over a map, with the handlers a test can fire. */
function informer<T extends { metadata?: { name?: string } }>(objects: Map<string, T>) {
  const handlers: InformerHandlers<T>[] = [];
  const inf = {
    get: (name: string) => objects.get(name),
    list: () => [...objects.values()],
    subscribe: (h: InformerHandlers<T>) => {
      handlers.push(h);
      for (const o of objects.values()) h.add?.(o);
      return () => handlers.splice(handlers.indexOf(h), 1);
    },
  } as unknown as Informer<T>;
  return {
    inf,
    add: (o: T) => {
      objects.set(o.metadata?.name ?? '', o);
      for (const h of handlers) h.add?.(o);
    },
    remove: (name: string) => {
      const o = objects.get(name)!;
      objects.delete(name);
      for (const h of handlers) h.delete?.(o);
    },
  };
}

describe('node agent authorizer: world', () => {
  let now = T0;
  const csrs = new Map<string, CsrObject>();
  const nodes = informer(new Map<string, NodeObject>());
  const csrInformer = informer(csrs);
  const gone = watchGoneNodes(nodes.inf, () => now);
  const world = shootWorld({
    nodes: nodes.inf,
    oscSecrets: informer(new Map<string, SecretObject>()).inf,
    csrs: csrInformer.inf,
    csrIndex: new NodeAgentCsrIndex(csrInformer.inf),
    bootstrapWindowMs: WINDOW_MS,
    goneNodes: gone,
    now: () => now,
  });

  it('counts the bootstrap window from the first approval, not the latest', () => {
    csrs.set('first', approvedCsr('first', 'node-a', 'system:bootstrap:aaaaaa', T0));
    now = T0 + 20 * 60_000;
    expect(world.recentlyIssued('node-a')).to.equal(true);
    // a second approval 20 minutes later must not give the name another 30 minutes
    csrs.set('second', approvedCsr('second', 'node-a', 'system:bootstrap:bbbbbb', now));
    now = T0 + WINDOW_MS + 1000;
    expect(world.recentlyIssued('node-a')).to.equal(false);
  });

  it('knows a Node that registered and was deleted, and forgets it when it comes back', () => {
    now = T0 + 60_000;
    expect(world.nodeWasRegistered('node-b')).to.equal(false);
    nodes.add({ metadata: { name: 'node-b' } });
    nodes.remove('node-b');
    expect(world.nodeWasRegistered('node-b')).to.equal(true);
    nodes.add({ metadata: { name: 'node-b' } });
    expect(world.nodeWasRegistered('node-b')).to.equal(false);
  });

  it('takes a Node being deleted as gone', () => {
    nodes.add({ metadata: { name: 'node-c', deletionTimestamp: iso(now) } });
    expect(world.node('node-c')).to.equal(undefined);
    expect(world.nodeWasRegistered('node-c')).to.equal(true);
  });

  it('after a restart, takes a renewal approved for a name as proof that its Node existed', () => {
    csrs.set('boot-d', approvedCsr('boot-d', 'node-d', 'system:bootstrap:dddddd', now));
    expect(world.nodeWasRegistered('node-d')).to.equal(false);
    csrs.set('renew-d', approvedCsr('renew-d', 'node-d', 'gardener.cloud:node-agent:machine:node-d', now));
    expect(world.nodeWasRegistered('node-d')).to.equal(true);
  });
});
