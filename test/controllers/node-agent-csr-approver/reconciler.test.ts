/**
 * The approver's reconciler: writes the verdict through the approval subresource with the
 * condition a kubectl user reads, records a Warning event for a denial, and remembers its own
 * approvals so that one bootstrap token asking twice before the cache shows the first approval
 * still gets one identity.
 */
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import {
  CsrApproverReconciler,
  csrApproverMetrics,
} from '../../../controllers/node-agent-csr-approver/reconciler.js';
import type { EventRecorder } from '../../../runtime/events.js';
import type { Informer } from '../../../runtime/kube/informer.js';
import { silentLogger } from '../../../runtime/logging.js';
import { pem } from '../../../runtime/pki/der.js';
import { createCertificationRequest } from '../../../runtime/pki/pkcs10.js';
import { type CsrObject, NodeAgentCsrIndex } from '../../../seed/node-identity/node-agent-csr.js';

function csrObject(name: string, node: string, username: string): CsrObject {
  const request = createCertificationRequest(
    {
      commonName: `gardener.cloud:node-agent:machine:${node}`,
      organizations: ['gardener.cloud:node-agents'],
    },
    generateKeyPairSync('ec', { namedCurve: 'prime256v1' }),
  );
  return {
    metadata: { name, resourceVersion: '1', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: {
      request: Buffer.from(pem('CERTIFICATE REQUEST', request)).toString('base64'),
      signerName: 'kubernetes.io/kube-apiserver-client',
      username,
      usages: ['digital signature', 'client auth'],
      expirationSeconds: 2_592_000,
    },
  };
}

describe('node agent CSR approver: reconciler', () => {
  const objects = new Map<string, CsrObject>();
  const informer = {
    get: (name: string) => objects.get(name),
    list: () => [...objects.values()],
  } as unknown as Informer<CsrObject>;
  const updates: { object: CsrObject; subresource?: string }[] = [];
  const events: string[] = [];
  const reconciler = new CsrApproverReconciler({
    csr: (name) => objects.get(name),
    index: new NodeAgentCsrIndex(informer),
    nodeExists: () => false,
    client: {
      update: async (_r, object, options) => {
        updates.push({ object: object as CsrObject, subresource: options?.subresource });
        return object;
      },
    },
    recorder: {
      event: async (_o: unknown, type: string, reason: string, message: string) =>
        void events.push(`${type} ${reason} ${message}`),
    } as unknown as EventRecorder,
    eventObject: { kind: 'Cluster', name: 'shoot--a--b' },
    metrics: csrApproverMetrics(new Registry()),
    maxExpirationSeconds: 2_592_000,
    now: () => new Date('2026-01-02T03:04:05.678Z'),
  });
  const ctx = { signal: new AbortController().signal, log: silentLogger };

  it('approves through the approval subresource, then denies a second node for the same token', async () => {
    objects.set('one', csrObject('one', 'node-a', 'system:bootstrap:abcdef'));
    objects.set('two', csrObject('two', 'node-b', 'system:bootstrap:abcdef'));
    expect((await reconciler.reconcile('one', ctx))?.action).to.equal('approve');
    // the cache has not seen the approval yet: the reconciler's memory must catch the second ask
    expect((await reconciler.reconcile('two', ctx))?.action).to.equal('deny');
    expect(updates.map((u) => u.subresource)).to.deep.equal(['approval', 'approval']);
    expect(updates[0]!.object.status?.conditions).to.deep.equal([
      {
        type: 'Approved',
        status: 'True',
        reason: 'RequestApproved',
        message:
          "Approving gardener-node-agent client certificate (a new machine's bootstrap token asks for the identity of node-a)",
        lastUpdateTime: '2026-01-02T03:04:05Z',
      },
    ]);
    expect(updates[1]!.object.status?.conditions?.[0]).to.deep.include({
      type: 'Denied',
      reason: 'RequestDenied',
    });
    expect(events).to.have.length(1);
    expect(events[0]).to.match(
      /^Warning NodeAgentCSRDenied Denied certificate signing request two for node node-b: /,
    );
  });

  it('issues the identity of one node once, however many bootstrap requests ask before the cache shows it', async () => {
    objects.set('first', csrObject('first', 'node-z', 'system:bootstrap:zzzzzz'));
    objects.set('again', csrObject('again', 'node-z', 'system:bootstrap:zzzzzz'));
    objects.set('other', csrObject('other', 'node-z', 'system:bootstrap:yyyyyy'));
    expect((await reconciler.reconcile('first', ctx))?.action).to.equal('approve');
    const again = await reconciler.reconcile('again', ctx);
    expect(again?.action).to.equal('deny');
    expect(again?.why).to.match(/identity of node-z was already issued \(first by system:bootstrap:zzzzzz\)/);
    expect((await reconciler.reconcile('other', ctx))?.action).to.equal('deny');
  });

  it("leaves requests alone that are decided, gone or not a node agent's", async () => {
    const before = updates.length;
    objects.set('done', {
      ...csrObject('done', 'node-c', 'system:bootstrap:123456'),
      status: { conditions: [{ type: 'Approved', status: 'True' }] },
    });
    objects.set('kubelet', {
      ...csrObject('kubelet', 'x', 'system:node:x'),
      spec: { ...csrObject('k', 'x', 'y').spec, signerName: 'kubernetes.io/kube-apiserver-client-kubelet' },
    });
    expect(await reconciler.reconcile('done', ctx)).to.equal(undefined);
    expect(await reconciler.reconcile('gone', ctx)).to.equal(undefined);
    expect(await reconciler.reconcile('kubelet', ctx)).to.equal(undefined);
    expect(updates.length).to.equal(before);
  });
});
