/**
 * The node agent authorizer's decision for one request (pure), after the kubelet's Node
 * authorizer: a user `gardener.cloud:node-agent:machine:<node>` may
 * - get, list and watch (by name) its pool's OSC secret and its token secrets in kube-system; while
 *   its Node is not registered yet and its identity is fresh (the bootstrap window, counted from
 *   the first approval of an identity for that name), every pool's OSC secret, since the pool is
 *   known only from the Node; an identity whose Node existed and is gone reads nothing;
 * - get, list and watch its own Node (by name, or listing by its hostname label), patch and update
 *   it and its status (what it may change there is the admission policy's to say); get its
 *   `nodes/proxy` (its kubelet's /configz for the in-effect check, docs/node-agent.md#in-effect);
 * - get, list, watch, create, update and patch its own Lease `kube-system/gardener-node-agent-<node>`
 *   (the name of a create is the policy's to check);
 * - create and patch Events in `default` (cluster-scoped objects' events; the policy checks they
 *   are about its Node);
 * - create CertificateSigningRequests and read its own (renewal; the approver checks the subject);
 * - list and watch the pods bound to its Node (`spec.nodeName=<node>`) and evict them (`create
 *   pods/eviction`, whose PodDisruptionBudgets the API server enforces): the drain before a restart
 *   a disruption policy asks to drain for (docs/least-disruption.md);
 * - what every authenticated user may (system:basic-user, system:discovery): ask who it is and
 *   what it may do (self reviews), read discovery and version.
 * Everything else is denied with a reason; nothing is left to RBAC. Other users are not ours: no
 * opinion (the API server's match condition never sends them).
 */
import { LABEL, NAMESPACE_KUBE_SYSTEM, nodeAgentLeaseName, nodeOfNodeAgentUser } from '../../api/index.js';

export interface SelectorRequirement {
  readonly key?: string;
  readonly operator?: string;
  readonly values?: readonly string[];
}

/** `spec` of an authorization.k8s.io/v1 SubjectAccessReview (the fields read here). */
export interface AccessReviewSpec {
  readonly user?: string;
  readonly groups?: readonly string[];
  readonly resourceAttributes?: {
    readonly namespace?: string;
    readonly verb?: string;
    readonly group?: string;
    readonly version?: string;
    readonly resource?: string;
    readonly subresource?: string;
    readonly name?: string;
    readonly fieldSelector?: { readonly requirements?: readonly SelectorRequirement[] };
    readonly labelSelector?: { readonly requirements?: readonly SelectorRequirement[] };
  };
  readonly nonResourceAttributes?: { readonly path?: string; readonly verb?: string };
}

export interface Decision {
  readonly allowed: boolean;
  /** Whether the decision is final (no other authorizer asked). */
  readonly denied: boolean;
  readonly reason: string;
}

/** What the decision reads of the shoot (from the controller-manager's shoot cache). */
export interface NodeAgentWorld {
  /** The Node of this name, with its worker pool label. */
  node(name: string): { readonly pool: string | undefined } | undefined;
  /** The names of the OSC secrets of a pool (any pool when undefined). */
  oscSecretNames(pool: string | undefined): readonly string[];
  /** The token secrets every node agent syncs (valitail's). */
  readonly tokenSecretNames: readonly string[];
  /** Whether the first identity of this node was approved within the bootstrap window. */
  recentlyIssued(node: string): boolean;
  /** Whether a Node of this name was registered once and is gone now (deleted or being deleted). */
  nodeWasRegistered(node: string): boolean;
  /** Who created the CertificateSigningRequest of this name (`spec.username`). */
  csrRequester(name: string): string | undefined;
  /**
   * The Node a pod is bound to (`spec.nodeName`; undefined when unknown or unbound). The shoot
   * cache holds no pods: the webhook reads the pod of an eviction live (webhook-server.ts).
   */
  podNode(namespace: string, name: string): string | undefined;
  /**
   * Whether the shoot follows the Gardener v1.150.0 contract, whose node agents record
   * events.k8s.io/v1 events (gardener v1.150.0 pkg/resourcemanager/webhook/nodeagentauthorizer
   * allows both event groups). Elsewhere only core/v1 events, the ones our admission policy checks.
   */
  readonly eventsV1?: () => boolean;
}

const allow = (reason: string): Decision => ({ allowed: true, denied: false, reason });
const deny = (reason: string): Decision => ({ allowed: false, denied: true, reason });
const NO_OPINION: Decision = { allowed: false, denied: false, reason: '' };

const READ = ['get', 'list', 'watch'];

/** The value a selector pins `key` to (`key=value`, `key==value`, `key in (value)`). */
function pinnedValue(requirements: readonly SelectorRequirement[] | undefined, key: string) {
  for (const r of requirements ?? []) {
    const op = r.operator?.toLowerCase();
    if (r.key === key && (op === '=' || op === '==' || op === 'in') && r.values?.length === 1)
      return r.values[0];
  }
  return undefined;
}

type Attributes = NonNullable<AccessReviewSpec['resourceAttributes']>;

function secrets(node: string, a: Attributes, world: NodeAgentWorld): Decision {
  if (!READ.includes(a.verb ?? '')) return deny(`a node agent may only read secrets, not ${a.verb} them`);
  if (a.namespace !== NAMESPACE_KUBE_SYSTEM || !a.name)
    return deny(`a node agent may read only named secrets in ${NAMESPACE_KUBE_SYSTEM}`);
  if (a.subresource) return deny(`a node agent may not access secrets/${a.subresource}`);
  const live = world.node(node);
  // a machine's Node deleted within its bootstrap window must not leave its identity the window's reads
  if (!live && world.nodeWasRegistered(node))
    return deny(`Node ${node} was registered and is gone: its identity reads nothing`);
  // an identity without a Node (one that never registered) reads nothing after its bootstrap window
  if (!live && !world.recentlyIssued(node))
    return deny(`Node ${node} is not registered and its identity is older than the bootstrap window`);
  if (world.tokenSecretNames.includes(a.name)) return allow(`token secret ${a.name}`);
  if (live) {
    if (world.oscSecretNames(live.pool).includes(a.name))
      return allow(`OSC secret ${a.name} of pool ${live.pool}`);
    return deny(
      `secret ${a.name} is neither the OSC secret of pool ${live.pool ?? '<none>'} (the pool of Node ${node}) nor a token secret of node agents`,
    );
  }
  if (world.oscSecretNames(undefined).includes(a.name))
    return allow(`OSC secret ${a.name} while Node ${node} bootstraps`);
  return deny(`secret ${a.name} is neither an OSC secret nor a token secret of node agents`);
}

function nodes(node: string, a: Attributes): Decision {
  const verb = a.verb ?? '';
  if (a.subresource === 'proxy') {
    // the in-effect check reads its kubelet's /configz through the API server's node proxy, the
    // one way its identity reaches the kubelet (node-agent/.../in-effect/configz-fetch.ts); only
    // GET of its own Node, which reaches no more than root on that node already does
    if (a.name !== node)
      return deny(`a node agent may proxy only to its own Node ${node}, not ${a.name || 'any'}`);
    if (verb === 'get') return allow(`reading its own kubelet through the node proxy of ${node}`);
    return deny(`a node agent may only get nodes/proxy of its Node, not ${verb} it`);
  }
  if (a.subresource && a.subresource !== 'status')
    return deny(`a node agent may not access nodes/${a.subresource}`);
  if (a.name) {
    if (a.name !== node) return deny(`a node agent may access only its own Node ${node}, not ${a.name}`);
    if ([...READ, 'patch', 'update'].includes(verb)) return allow(`its own Node ${node}`);
    return deny(`a node agent may not ${verb} its Node`);
  }
  if ((verb === 'list' || verb === 'watch') && !a.subresource) {
    if (pinnedValue(a.labelSelector?.requirements, LABEL.hostname) === node)
      return allow(`Nodes labelled ${LABEL.hostname}=${node}`);
    if (pinnedValue(a.fieldSelector?.requirements, 'metadata.name') === node)
      return allow(`Nodes named ${node}`);
  }
  return deny(`a node agent may ${verb} only its own Node ${node}, by name or by ${LABEL.hostname}=${node}`);
}

function leases(node: string, a: Attributes): Decision {
  const lease = nodeAgentLeaseName(node);
  if (a.namespace !== NAMESPACE_KUBE_SYSTEM || a.subresource)
    return deny(`a node agent may access only its Lease ${NAMESPACE_KUBE_SYSTEM}/${lease}`);
  const verb = a.verb ?? '';
  if (verb === 'create' && (!a.name || a.name === lease)) return allow(`creating its Lease ${lease}`);
  if ([...READ, 'update', 'patch'].includes(verb) && a.name === lease) return allow(`its Lease ${lease}`);
  return deny(
    `a node agent may access only its Lease ${NAMESPACE_KUBE_SYSTEM}/${lease}, not ${verb} ${a.name || 'any'}`,
  );
}

function events(a: Attributes, world: NodeAgentWorld): Decision {
  if (a.group && !(a.group === 'events.k8s.io' && world.eventsV1?.()))
    return deny('a node agent records core/v1 events only (events.k8s.io/v1 on a Gardener v1.150.0 shoot)');
  if (a.namespace !== 'default' || a.subresource)
    return deny('a node agent records events only about its Node, in namespace default');
  if (a.verb === 'create' || a.verb === 'patch') return allow('events about its Node');
  return deny(`a node agent may create and patch events, not ${a.verb} them`);
}

function csrs(user: string, a: Attributes, world: NodeAgentWorld): Decision {
  if (a.subresource) return deny(`a node agent may not access certificatesigningrequests/${a.subresource}`);
  if (a.verb === 'create') return allow('requesting its client certificate');
  if (READ.includes(a.verb ?? '') && a.name) {
    const requester = world.csrRequester(a.name);
    if (requester === user) return allow(`its own certificate signing request ${a.name}`);
    return deny(`certificate signing request ${a.name} is not ${user}'s`);
  }
  return deny('a node agent may create certificate signing requests and read its own, by name');
}

function pods(node: string, a: Attributes, world: NodeAgentWorld): Decision {
  const verb = a.verb ?? '';
  if (a.subresource === 'eviction') {
    if (verb !== 'create') return deny(`a node agent may only create pods/eviction, not ${verb} it`);
    if (!a.namespace || !a.name) return deny('a node agent may evict only a named pod');
    const bound = world.podNode(a.namespace, a.name);
    if (bound === node) return allow(`evicting pod ${a.namespace}/${a.name} of its Node ${node}`);
    return deny(
      `pod ${a.namespace}/${a.name} is ${bound ? `bound to Node ${bound}` : 'not bound to a Node (or gone)'}, not to its Node ${node}`,
    );
  }
  if (a.subresource) return deny(`a node agent may not access pods/${a.subresource}`);
  if (
    (verb === 'list' || verb === 'watch') &&
    pinnedValue(a.fieldSelector?.requirements, 'spec.nodeName') === node
  )
    return allow(`pods bound to its Node ${node}`);
  return deny(
    `a node agent may only list and watch the pods of its Node, by spec.nodeName=${node}, and evict them`,
  );
}

/** Discovery, version and health, as `system:discovery` and `system:public-info-viewer` allow everyone. */
const PUBLIC_PATHS = /^\/(api|apis|openapi)(\/.*)?$|^\/(version|healthz|livez|readyz)\/?$/;

/** What `system:basic-user` allows every authenticated user: asking about itself. */
const SELF_REVIEWS = new Set([
  'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
]);

export function decideNodeAgentAccess(spec: AccessReviewSpec, world: NodeAgentWorld): Decision {
  const user = spec.user ?? '';
  const node = nodeOfNodeAgentUser(user);
  if (node === undefined) return NO_OPINION;
  const a = spec.resourceAttributes;
  if (!a) {
    const n = spec.nonResourceAttributes;
    if (n?.verb === 'get' && PUBLIC_PATHS.test(n.path ?? '')) return allow('discovery, version and health');
    return deny(`a node agent may not ${n?.verb ?? 'access'} ${n?.path ?? 'this path'}`);
  }
  const resource = `${a.group ? `${a.group}/` : ''}${a.resource}`;
  if (SELF_REVIEWS.has(resource)) {
    if (a.verb === 'create' && !a.subresource) return allow('asking about itself');
    return deny(`a node agent may only create ${a.resource}`);
  }
  switch (resource) {
    case 'secrets':
      return secrets(node, a, world);
    case 'nodes':
      return nodes(node, a);
    case 'coordination.k8s.io/leases':
      return leases(node, a);
    case 'events':
    case 'events.k8s.io/events':
      return events(a, world);
    case 'certificates.k8s.io/certificatesigningrequests':
      return csrs(user, a, world);
    case 'pods':
      return pods(node, a, world);
    default:
      return deny(`a node agent may not access ${resource}`);
  }
}
