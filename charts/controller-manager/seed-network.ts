/**
 * How the controller-manager's pods pass a Gardener seed's NetworkPolicies (deny-all by default in
 * `garden` and `extension-*`). Egress by pod labels, which gardenlet's and gardener-resource-manager's
 * NetworkPolicy controllers turn into allow rules: cluster DNS, the seed's own API server (the
 * Clusters, the leader Lease) and every shoot's kube-apiserver on 443 (the `gardener-internal`
 * kubeconfigs). Ingress to a webhook by a Service annotation: the shoots' kube-apiservers call the
 * node agent authorizer. The names are those of Gardener v1.91's
 * pkg/apis/core/v1beta1/constants/types_constants.go (LabelNetworkPolicyToDNS,
 * LabelNetworkPolicyToRuntimeAPIServer) and docs/concepts/resource-manager.md (NetworkPolicy
 * controller: `to-all-shoots-kube-apiserver-tcp-443`, `from-all-webhook-targets-allowed-ports`).
 */
export const SEED_EGRESS_POD_LABELS: Readonly<Record<string, string>> = {
  'networking.gardener.cloud/to-dns': 'allowed',
  'networking.gardener.cloud/to-runtime-apiserver': 'allowed',
  'networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443': 'allowed',
};

/** The annotation of a Service whose port the shoots' kube-apiservers may reach (a webhook). */
export const WEBHOOK_TARGET_PORTS_ANNOTATION =
  'networking.resources.gardener.cloud/from-all-webhook-targets-allowed-ports';

export function webhookTargetPorts(port: number): string {
  return JSON.stringify([{ protocol: 'TCP', port }]);
}
