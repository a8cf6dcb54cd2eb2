/**
 * Which node labels the kubelet may set on itself (k8s.io/kubelet's rules, as NodeRestriction
 * enforces them): labels in kubernetes.io / k8s.io namespaces only when they are well-known
 * kubelet labels or under kubelet.kubernetes.io / node.kubernetes.io; never
 * node-restriction.kubernetes.io.
 */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/instance-type',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
]);

const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

const isInDomain = (namespace: string, domain: string) =>
  namespace === domain || namespace.endsWith(`.${domain}`);

export function isAllowedForKubelet(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return true;
  const namespace = key.slice(0, slash);
  if (isInDomain(namespace, 'node-restriction.kubernetes.io')) return false;
  if (!isInDomain(namespace, 'kubernetes.io') && !isInDomain(namespace, 'k8s.io')) return true;
  return KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((d) => isInDomain(namespace, d));
}
