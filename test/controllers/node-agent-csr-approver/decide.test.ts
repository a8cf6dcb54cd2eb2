/**
 * The node agent CSR approver's decision, table-tested: the subject, what the request asks for
 * (usages, lifetime), who asks, whether its Node is registered and whether its identity was
 * issued before decide; requests for other subjects are not ours.
 */
import { expect } from 'chai';
import { type CsrDecision, decideNodeAgentCsr } from '../../../controllers/node-agent-csr-approver/decide.js';
import { maxLifetimeWarning } from '../../../controllers/node-agent-csr-approver/lifetime-warning.js';
import type { NodeAgentCsr } from '../../../seed/node-identity/node-agent-csr.js';

const NODE = 'node-a';
const IDENTITY = `gardener.cloud:node-agent:machine:${NODE}`;
const BOOTSTRAP = 'system:bootstrap:abcdef';
const MAX_SECONDS = 30 * 24 * 3600;

function csr(
  overrides: Partial<NodeAgentCsr> = {},
  request: Partial<NodeAgentCsr['request']> = {},
): NodeAgentCsr {
  return {
    name: 'node-agent-csr-1',
    node: NODE,
    requester: BOOTSTRAP,
    usages: ['digital signature', 'client auth'],
    expirationSeconds: MAX_SECONDS,
    approved: false,
    denied: false,
    issued: false,
    createdAt: 0,
    approvedAt: undefined,
    ...overrides,
    request: {
      subject: { commonName: IDENTITY, organizations: ['gardener.cloud:node-agents'], others: [] },
      keyType: 'ec',
      extensions: [],
      attributes: [],
      signatureValid: true,
      ...request,
    },
  };
}

interface Row {
  readonly name: string;
  readonly csr: NodeAgentCsr;
  readonly registered?: boolean;
  readonly approvedBefore?: readonly string[];
  /** Requests approved before for the identity of node-a (their requesters). */
  readonly issuedBefore?: readonly string[];
  readonly expect: CsrDecision['action'];
  readonly why?: RegExp;
}

const rows: Row[] = [
  { name: 'a bootstrap token for a new machine', csr: csr(), expect: 'approve' },
  {
    name: 'a bootstrap token for a registered node',
    csr: csr(),
    registered: true,
    expect: 'deny',
    why: /Node node-a is registered/,
  },
  {
    name: 'a bootstrap token that already got another identity',
    csr: csr(),
    approvedBefore: ['node-b'],
    expect: 'deny',
    why: /already got the identity of node-b/,
  },
  {
    name: 'a bootstrap token asking again for its own node, not registered',
    csr: csr(),
    approvedBefore: [NODE],
    issuedBefore: [BOOTSTRAP],
    expect: 'deny',
    why: /identity of node-a was already issued \(csr-0 by system:bootstrap:abcdef\) and Node node-a is not registered/,
  },
  {
    name: 'another bootstrap token asking for an identity already issued',
    csr: csr({ requester: 'system:bootstrap:other1' }),
    issuedBefore: [BOOTSTRAP],
    expect: 'deny',
    why: /a bootstrap token gets one identity per machine/,
  },
  {
    name: 'the identity renewing, its Node registered, after a bootstrap approval',
    csr: csr({ requester: IDENTITY }),
    registered: true,
    issuedBefore: [BOOTSTRAP],
    expect: 'approve',
  },
  {
    name: 'a request without spec.expirationSeconds',
    csr: csr({ expirationSeconds: undefined }),
    expect: 'deny',
    why: /spec.expirationSeconds must be set/,
  },
  {
    name: 'a request for 10 years',
    csr: csr({ expirationSeconds: 10 * 365 * 24 * 3600 }),
    expect: 'deny',
    why: /spec.expirationSeconds 315360000 is more than the maximum 2592000/,
  },
  {
    name: 'a renewal for more than the maximum',
    csr: csr({ requester: IDENTITY, expirationSeconds: MAX_SECONDS + 1 }),
    registered: true,
    expect: 'deny',
    why: /nodeAgent.maxCertificateLifetime/,
  },
  {
    name: 'a request for less than the maximum',
    csr: csr({ expirationSeconds: 3600 }),
    expect: 'approve',
  },
  { name: 'the identity renewing', csr: csr({ requester: IDENTITY }), registered: true, expect: 'approve' },
  {
    name: 'the identity renewing without a Node',
    csr: csr({ requester: IDENTITY }),
    expect: 'deny',
    why: /no Node node-a exists/,
  },
  {
    name: "another node's identity asking for this one",
    csr: csr({ requester: 'gardener.cloud:node-agent:machine:node-b' }),
    registered: true,
    expect: 'deny',
    why: /may not ask/,
  },
  {
    name: 'the shared ServiceAccount for a running node',
    csr: csr({ requester: 'system:serviceaccount:kube-system:gardener-node-agent' }),
    registered: true,
    expect: 'approve',
  },
  {
    name: "the legacy downloader's ServiceAccount for a running node",
    csr: csr({ requester: 'system:serviceaccount:kube-system:cloud-config-downloader' }),
    registered: true,
    expect: 'approve',
  },
  {
    name: 'the shared ServiceAccount for a node that is not registered',
    csr: csr({ requester: 'system:serviceaccount:kube-system:gardener-node-agent' }),
    expect: 'deny',
    why: /registered Node/,
  },
  {
    name: 'any other user',
    csr: csr({ requester: 'jane' }),
    registered: true,
    expect: 'deny',
    why: /jane may not ask/,
  },
  {
    name: 'a second organization',
    csr: csr(
      {},
      {
        subject: {
          commonName: IDENTITY,
          organizations: ['gardener.cloud:node-agents', 'system:masters'],
          others: [],
        },
      },
    ),
    expect: 'deny',
    why: /organization must be exactly/,
  },
  {
    name: 'no organization',
    csr: csr({}, { subject: { commonName: IDENTITY, organizations: [], others: [] } }),
    expect: 'deny',
    why: /organization/,
  },
  {
    name: 'more subject attributes',
    csr: csr(
      {},
      {
        subject: {
          commonName: IDENTITY,
          organizations: ['gardener.cloud:node-agents'],
          others: ['2.5.4.11'],
        },
      },
    ),
    expect: 'deny',
    why: /only CN and O/,
  },
  {
    name: 'requested SANs',
    csr: csr({}, { extensions: ['2.5.29.17'] }),
    expect: 'deny',
    why: /no extensions/,
  },
  {
    name: 'a bad signature',
    csr: csr({}, { signatureValid: false }),
    expect: 'deny',
    why: /not signed by the key/,
  },
  {
    name: 'server auth usage',
    csr: csr({ usages: ['digital signature', 'client auth', 'server auth'] }),
    expect: 'deny',
    why: /usages/,
  },
  {
    name: 'no client auth usage',
    csr: csr({ usages: ['digital signature'] }),
    expect: 'deny',
    why: /usages/,
  },
  {
    name: 'an invalid node name',
    csr: csr({ node: 'Node_A' }),
    expect: 'deny',
    why: /not a valid Node name/,
  },
  { name: 'an approved request', csr: csr({ approved: true }), expect: 'ignore' },
  { name: 'a denied request', csr: csr({ denied: true }), expect: 'ignore' },
];

describe('node agent CSR approver: the maximum lifetime', () => {
  it('warns when the maximum is below what agents ask for (720h), not at or above it', () => {
    expect(maxLifetimeWarning(24 * 3_600_000)).to.match(
      /nodeAgent.maxCertificateLifetime is 86400s, less than the 2592000s \(720h\) node agents ask for: every node agent's certificate signing request will be denied/,
    );
    expect(maxLifetimeWarning(720 * 3_600_000)).to.equal(undefined);
    expect(maxLifetimeWarning(8760 * 3_600_000)).to.equal(undefined);
  });
});

describe('node agent CSR approver: decide', () => {
  for (const row of rows) {
    it(`${row.expect}s ${row.name}`, () => {
      const decision = decideNodeAgentCsr(row.csr, {
        nodeExists: (name) => Boolean(row.registered) && name === row.csr.node,
        approvedNodesOf: () => row.approvedBefore ?? [],
        approvedFor: (node) =>
          node === NODE
            ? (row.issuedBefore ?? []).map((requester, i) => ({ name: `csr-${i}`, requester }))
            : [],
        maxExpirationSeconds: MAX_SECONDS,
      });
      expect(decision.action, decision.why).to.equal(row.expect);
      if (row.why) expect(decision.why).to.match(row.why);
    });
  }
});
