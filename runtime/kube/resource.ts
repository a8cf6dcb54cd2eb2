/**
 * The kinds this project reads and writes, each with what its REST path needs (group/version,
 * plural, scope), so that callers name a kind (`RESOURCE.secret`) instead of writing paths. A kind
 * not listed here is an error naming it, never a guessed plural.
 */
import {
  CLUSTER_API_VERSION,
  CLUSTER_KIND,
  MANAGED_RESOURCE_API_VERSION,
  MANAGED_RESOURCE_KIND,
  OSC_API_VERSION,
  OSC_KIND,
} from '../../api/index.js';

/** A kind's REST resource. */
export interface Resource {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

const resource = (apiVersion: string, kind: string, plural: string, namespaced: boolean): Resource => ({
  apiVersion,
  kind,
  plural,
  namespaced,
});

export const RESOURCE = {
  namespace: resource('v1', 'Namespace', 'namespaces', false),
  node: resource('v1', 'Node', 'nodes', false),
  pod: resource('v1', 'Pod', 'pods', true),
  secret: resource('v1', 'Secret', 'secrets', true),
  configMap: resource('v1', 'ConfigMap', 'configmaps', true),
  serviceAccount: resource('v1', 'ServiceAccount', 'serviceaccounts', true),
  event: resource('v1', 'Event', 'events', true),
  eventV1: resource('events.k8s.io/v1', 'Event', 'events', true),
  lease: resource('coordination.k8s.io/v1', 'Lease', 'leases', true),
  role: resource('rbac.authorization.k8s.io/v1', 'Role', 'roles', true),
  roleBinding: resource('rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings', true),
  clusterRole: resource('rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', false),
  clusterRoleBinding: resource(
    'rbac.authorization.k8s.io/v1',
    'ClusterRoleBinding',
    'clusterrolebindings',
    false,
  ),
  certificateSigningRequest: resource(
    'certificates.k8s.io/v1',
    'CertificateSigningRequest',
    'certificatesigningrequests',
    false,
  ),
  validatingAdmissionPolicy: resource(
    'admissionregistration.k8s.io/v1',
    'ValidatingAdmissionPolicy',
    'validatingadmissionpolicies',
    false,
  ),
  validatingAdmissionPolicyBinding: resource(
    'admissionregistration.k8s.io/v1',
    'ValidatingAdmissionPolicyBinding',
    'validatingadmissionpolicybindings',
    false,
  ),
  cluster: resource(CLUSTER_API_VERSION, CLUSTER_KIND, 'clusters', false),
  operatingSystemConfig: resource(OSC_API_VERSION, OSC_KIND, 'operatingsystemconfigs', true),
  managedResource: resource(MANAGED_RESOURCE_API_VERSION, MANAGED_RESOURCE_KIND, 'managedresources', true),
} as const;

export class UnknownKindError extends Error {
  constructor(apiVersion: string | undefined, kind: string | undefined) {
    super(`no REST resource known for ${apiVersion ?? '<no apiVersion>'} ${kind ?? '<no kind>'}`);
    this.name = 'UnknownKindError';
  }
}

const byKind = new Map<string, Resource>(
  Object.values(RESOURCE).map((r) => [`${r.apiVersion} ${r.kind}`, r]),
);

/** The resource of an object's apiVersion and kind; throws UnknownKindError for others. */
export function resourceOf(object: { apiVersion?: string; kind?: string }): Resource {
  const found = byKind.get(`${object.apiVersion} ${object.kind}`);
  if (!found) throw new UnknownKindError(object.apiVersion, object.kind);
  return found;
}

/** One path segment, escaped (names are DNS names, but a typo must not change the path). */
export function segment(name: string): string {
  return encodeURIComponent(name);
}

/** `/api/v1[/namespaces/<ns>]/<plural>` or `/apis/<group>/<version>[/namespaces/<ns>]/<plural>`. */
export function collectionPath(r: Resource, namespace?: string): string {
  const base = r.apiVersion.includes('/') ? `/apis/${r.apiVersion}` : `/api/${r.apiVersion}`;
  const ns = r.namespaced && namespace ? `/namespaces/${segment(namespace)}` : '';
  return `${base}${ns}/${r.plural}`;
}

export function objectPath(r: Resource, name: string, namespace?: string, subresource?: string): string {
  if (r.namespaced && !namespace)
    throw new Error(`${r.kind} ${name} is namespaced: a namespace is required to address it`);
  return `${collectionPath(r, namespace)}/${segment(name)}${subresource ? `/${subresource}` : ''}`;
}
