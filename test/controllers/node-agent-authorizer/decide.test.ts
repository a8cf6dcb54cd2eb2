/**
 * The node agent authorizer's decision, table-tested against a small shoot: node-a and node-b in
 * pool p, node-c in pool q, node-new not registered yet (its identity fresh), node-old not
 * registered and its identity stale, node-gone deleted after it registered (its identity still
 * within the bootstrap window). Every row is one SubjectAccessReview.
 */
import { expect } from 'chai';
import {
  type AccessReviewSpec,
  decideNodeAgentAccess,
  type NodeAgentWorld,
} from '../../../controllers/node-agent-authorizer/decide.js';

const user = (node: string) => `gardener.cloud:node-agent:machine:${node}`;
const POOLS: Record<string, string> = { 'node-a': 'p', 'node-b': 'p', 'node-c': 'q' };
const SECRETS: Record<string, string> = { 'osc-p': 'p', 'osc-q': 'q' };

const world: NodeAgentWorld = {
  node: (name) => (name in POOLS ? { pool: POOLS[name] } : undefined),
  oscSecretNames: (pool) => Object.keys(SECRETS).filter((s) => pool === undefined || SECRETS[s] === pool),
  tokenSecretNames: ['gardener-valitail'],
  recentlyIssued: (node) => node === 'node-new' || node === 'node-gone',
  nodeWasRegistered: (node) => node === 'node-gone',
  csrRequester: (name) => ({ 'csr-a': user('node-a'), 'csr-b': user('node-b') })[name],
  podNode: (namespace, name) =>
    namespace === 'apps'
      ? ({ 'web-a': 'node-a', 'web-b': 'node-b' } as Record<string, string>)[name]
      : undefined,
};

type Attributes = NonNullable<AccessReviewSpec['resourceAttributes']>;
const r = (a: Attributes): Attributes => ({ group: '', version: 'v1', ...a });
const secret = (verb: string, name: string, namespace = 'kube-system') =>
  r({ verb, resource: 'secrets', name, namespace });
const node = (verb: string, name?: string, subresource?: string) =>
  r({ verb, resource: 'nodes', name, subresource });
const lease = (verb: string, name?: string, namespace = 'kube-system') =>
  r({ group: 'coordination.k8s.io', verb, resource: 'leases', name, namespace });
const event = (verb: string, namespace = 'default') => r({ verb, resource: 'events', namespace });
/** The API server leaves `group` out of reviews for the core group. */
const coreEvent = (verb: string) => ({ verb, version: 'v1', resource: 'events', namespace: 'default' });
const pods = (verb: string, nodeName?: string) =>
  r({
    verb,
    resource: 'pods',
    fieldSelector: nodeName
      ? { requirements: [{ key: 'spec.nodeName', operator: '=', values: [nodeName] }] }
      : undefined,
  });
const eviction = (name: string, namespace = 'apps', verb = 'create') =>
  r({ verb, resource: 'pods', subresource: 'eviction', name, namespace });
const csr = (verb: string, name?: string) =>
  r({ group: 'certificates.k8s.io', verb, resource: 'certificatesigningrequests', name });

const rows: [string, string, Attributes | undefined, boolean, RegExp?][] = [
  // its pool's OSC secret and the token secrets; nothing else
  ['node-a', 'get its pool OSC secret', secret('get', 'osc-p'), true],
  ['node-a', 'watch its pool OSC secret by name', secret('watch', 'osc-p'), true],
  [
    'node-a',
    "get another pool's OSC secret",
    secret('get', 'osc-q'),
    false,
    /neither the OSC secret of pool p/,
  ],
  ['node-a', 'get the valitail token', secret('get', 'gardener-valitail'), true],
  ['node-a', 'get the shared agent token', secret('get', 'gardener-node-agent'), false],
  ['node-a', 'list all secrets', secret('list', ''), false, /only named secrets/],
  ['node-a', 'get an OSC-named secret elsewhere', secret('get', 'osc-p', 'default'), false],
  ['node-a', 'update its OSC secret', secret('update', 'osc-p'), false, /only read secrets/],
  ['node-new', 'read any OSC secret while bootstrapping', secret('get', 'osc-q'), true],
  ['node-new', 'read a non-OSC secret while bootstrapping', secret('get', 'other'), false],
  [
    'node-old',
    'read the valitail token without a Node, identity stale',
    secret('get', 'gardener-valitail'),
    false,
    /bootstrap window/,
  ],
  ['node-new', 'read the valitail token while bootstrapping', secret('get', 'gardener-valitail'), true],
  [
    'node-old',
    'read an OSC secret without a Node, identity stale',
    secret('get', 'osc-p'),
    false,
    /bootstrap window/,
  ],
  [
    'node-gone',
    'read any OSC secret within the window after its Node was deleted',
    secret('get', 'osc-q'),
    false,
    /Node node-gone was registered and is gone/,
  ],
  [
    'node-gone',
    'read the valitail token after its Node was deleted',
    secret('get', 'gardener-valitail'),
    false,
  ],
  // its own Node only
  ['node-a', 'get its Node', node('get', 'node-a'), true],
  ['node-a', 'patch its Node', node('patch', 'node-a'), true],
  ['node-a', 'update its Node status', node('update', 'node-a', 'status'), true],
  ['node-a', 'delete its Node', node('delete', 'node-a'), false],
  ['node-a', 'get another Node', node('get', 'node-b'), false, /only its own Node node-a/],
  ['node-a', 'patch another Node status', node('patch', 'node-b', 'status'), false],
  ['node-a', 'list every Node', node('list'), false],
  // its kubelet's /configz through the node proxy (the in-effect check); no POST (exec, attach)
  ['node-a', 'GET through the proxy of its Node', node('get', 'node-a', 'proxy'), true],
  [
    'node-a',
    'POST through the proxy of its Node',
    node('create', 'node-a', 'proxy'),
    false,
    /only get nodes\/proxy/,
  ],
  [
    'node-a',
    'GET through the proxy of another Node',
    node('get', 'node-b', 'proxy'),
    false,
    /only to its own Node/,
  ],
  [
    'node-a',
    'GET through the proxy of any Node',
    node('get', undefined, 'proxy'),
    false,
    /only to its own Node/,
  ],
  ['node-a', 'its Node configz (the kubelet asks it directly)', node('get', 'node-a', 'configz'), false],
  // its Lease only
  ['node-a', 'create a Lease (name checked by admission)', lease('create'), true],
  ['node-a', 'update its Lease', lease('update', 'gardener-node-agent-node-a'), true],
  ['node-a', "update node-b's Lease", lease('update', 'gardener-node-agent-node-b'), false],
  ['node-a', 'get a Lease elsewhere', lease('get', 'gardener-node-agent-node-a', 'default'), false],
  ['node-a', 'delete its Lease', lease('delete', 'gardener-node-agent-node-a'), false],
  // events in default only
  ['node-a', 'create an event', event('create'), true],
  ['node-a', 'create an event (no group in the review)', coreEvent('create'), true],
  [
    'node-a',
    'create an events.k8s.io event (a v1.91.4 shoot)',
    r({ group: 'events.k8s.io', verb: 'create', resource: 'events', namespace: 'default' }),
    false,
  ],
  ['node-a', 'patch an event (aggregation)', event('patch'), true],
  ['node-a', 'list events', event('list'), false],
  ['node-a', 'create an event in kube-system', event('create', 'kube-system'), false],
  // its own CSRs
  ['node-a', 'create a CSR', csr('create'), true],
  ['node-a', 'get its CSR', csr('get', 'csr-a'), true],
  ['node-a', "get node-b's CSR", csr('get', 'csr-b'), false],
  ['node-a', 'list CSRs', csr('list'), false],
  [
    'node-a',
    'approve a CSR',
    r({
      group: 'certificates.k8s.io',
      verb: 'update',
      resource: 'certificatesigningrequests',
      name: 'csr-a',
      subresource: 'approval',
    }),
    false,
  ],
  // what everybody may, and nothing else
  [
    'node-a',
    'ask who it is',
    r({ group: 'authentication.k8s.io', verb: 'create', resource: 'selfsubjectreviews' }),
    true,
  ],
  // the pods of its Node, for a drain: listed by spec.nodeName, evicted one by one
  ['node-a', 'list the pods of its Node', pods('list', 'node-a'), true],
  ['node-a', 'watch the pods of its Node', pods('watch', 'node-a'), true],
  ['node-a', 'list every pod', pods('list'), false, /only list and watch the pods of its Node/],
  ['node-a', 'list the pods of node-b', pods('list', 'node-b'), false],
  ['node-a', 'get a pod', r({ verb: 'get', resource: 'pods', name: 'web-a', namespace: 'apps' }), false],
  [
    'node-a',
    'delete a pod of its Node',
    r({ verb: 'delete', resource: 'pods', name: 'web-a', namespace: 'apps' }),
    false,
  ],
  ['node-a', 'evict a pod of its Node', eviction('web-a'), true],
  [
    'node-a',
    'evict a pod of node-b',
    eviction('web-b'),
    false,
    /bound to Node node-b, not to its Node node-a/,
  ],
  ['node-a', 'evict a pod it cannot see', eviction('web-a', 'other'), false, /not bound to a Node/],
  ['node-a', 'get an eviction', eviction('web-a', 'apps', 'get'), false, /only create pods\/eviction/],
  [
    'node-a',
    'exec into a pod of its Node',
    r({ verb: 'create', resource: 'pods', subresource: 'exec', name: 'web-a', namespace: 'apps' }),
    false,
    /may not access pods\/exec/,
  ],
  [
    'node-a',
    'get a configmap',
    r({ verb: 'get', resource: 'configmaps', namespace: 'kube-system', name: 'x' }),
    false,
  ],
  [
    'node-a',
    'create a token for a ServiceAccount',
    r({
      verb: 'create',
      resource: 'serviceaccounts',
      subresource: 'token',
      name: 'x',
      namespace: 'kube-system',
    }),
    false,
  ],
];

describe('node agent authorizer: decide', () => {
  for (const [who, what, attributes, allowed, reason] of rows) {
    it(`${who}: ${allowed ? 'may' : 'may not'} ${what}`, () => {
      const d = decideNodeAgentAccess({ user: user(who), resourceAttributes: attributes }, world);
      expect(d.allowed, d.reason).to.equal(allowed);
      expect(d.denied, d.reason).to.equal(!allowed);
      expect(d.reason).not.to.equal('');
      if (reason) expect(d.reason).to.match(reason);
    });
  }

  it('lets the node agents of a v1.150.0 shoot create and patch events.k8s.io events in default', () => {
    const v150 = { ...world, eventsV1: () => true };
    const eventV1 = (verb: string, namespace = 'default') =>
      r({ group: 'events.k8s.io', verb, resource: 'events', namespace });
    const decide = (a: Attributes) =>
      decideNodeAgentAccess({ user: user('node-a'), resourceAttributes: a }, v150).allowed;
    expect(decide(eventV1('create'))).to.equal(true);
    expect(decide(eventV1('patch'))).to.equal(true);
    expect(decide(eventV1('list'))).to.equal(false);
    expect(decide(eventV1('create', 'kube-system'))).to.equal(false);
    expect(decide(event('create'))).to.equal(true);
  });

  it('lists or watches Nodes only by its own name or hostname label', () => {
    const list = (key: string, value: string, via: 'fieldSelector' | 'labelSelector') =>
      decideNodeAgentAccess(
        {
          user: user('node-a'),
          resourceAttributes: r({
            verb: 'watch',
            resource: 'nodes',
            [via]: { requirements: [{ key, operator: 'In', values: [value] }] },
          }),
        },
        world,
      ).allowed;
    expect(list('kubernetes.io/hostname', 'node-a', 'labelSelector')).to.equal(true);
    expect(list('kubernetes.io/hostname', 'node-b', 'labelSelector')).to.equal(false);
    expect(list('metadata.name', 'node-a', 'fieldSelector')).to.equal(true);
    expect(list('kubernetes.io/role', 'node-a', 'labelSelector')).to.equal(false);
  });

  it('allows discovery and version, denies other paths', () => {
    const path = (p: string, verb = 'get') =>
      decideNodeAgentAccess({ user: user('node-a'), nonResourceAttributes: { path: p, verb } }, world)
        .allowed;
    expect(path('/apis/coordination.k8s.io/v1')).to.equal(true);
    expect(path('/version')).to.equal(true);
    expect(path('/metrics')).to.equal(false);
    expect(path('/logs/')).to.equal(false);
    expect(path('/api', 'post')).to.equal(false);
  });

  it('has no opinion on users that are not node agents', () => {
    for (const u of ['jane', 'system:node:node-a', 'gardener.cloud:node-agent:machine:']) {
      const d = decideNodeAgentAccess({ user: u, resourceAttributes: secret('get', 'osc-p') }, world);
      expect(d).to.deep.equal({ allowed: false, denied: false, reason: '' });
    }
  });
});
