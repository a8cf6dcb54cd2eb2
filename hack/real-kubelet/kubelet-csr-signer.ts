/**
 * What a shoot's control plane does for a kubelet that joins with a bootstrap token, for the test
 * landscape (envtest runs no kube-controller-manager and no gardener-resource-manager):
 *
 * - approves the kubelet's client certificate requests (`kubernetes.io/kube-apiserver-client-kubelet`)
 *   made with a bootstrap token or by the node itself, as kube-controller-manager's csrapproving
 *   controller does for `system:bootstrappers` and `system:nodes` (kubernetes v1.34.4
 *   pkg/controller/certificates/approver/sarapprove.go; the RBAC it checks is what the shoot render
 *   grants, `…:nodeclient` and `…:selfnodeclient`);
 * - approves the kubelet's serving certificate requests (`kubernetes.io/kubelet-serving`, from
 *   `serverTLSBootstrap: true`) of a node for itself, as gardener-resource-manager's
 *   kubelet-csr-approver does (gardener v1.91.4 pkg/resourcemanager/controller/csrapprover);
 * - approves a node agent's client certificate request (`kubernetes.io/kube-apiserver-client`,
 *   `node-agent-csr-…`) made with a bootstrap token, as the controller-manager's approver does once
 *   it found the Machine (controllers/node-agent-csr-approver; a v1.150 pool has only per-node
 *   identities);
 * - signs them with the environment's client CA (hack/landscape/csr-signing.ts), as
 *   kube-controller-manager's csrsigning controller does with the cluster's CA: client certificates
 *   for client auth, serving certificates for server auth with the names the kubelet asked for.
 */
import { type CsrObject, KUBE_APISERVER_CLIENT_SIGNER } from '../../api/index.js';
import { CSR_NAME_PREFIX } from '../../node-agent/identity/certificate-request.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { CLIENT_AUTH, isApproved, isDeniedOrFailed, watchCsrs } from '../landscape/csr-signing.js';
import type { Envtest } from '../landscape/envtest.js';

export const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';

/** What each signer's certificates are for (kubernetes v1.34.4 pkg/controller/certificates/signer). */
const EXTENSIONS: Readonly<Record<string, string>> = {
  [KUBELET_CLIENT_SIGNER]:
    'keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n',
  [KUBELET_SERVING_SIGNER]:
    'keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n',
  [KUBE_APISERVER_CLIENT_SIGNER]: CLIENT_AUTH,
};

export interface KubeletCsrSigner {
  /** `<signer> <name>` of every request approved so far, in order. */
  readonly approved: string[];
  readonly signed: string[];
  stop(): Promise<void>;
}

/** Whether kube-controller-manager (client) or gardener-resource-manager (serving) would approve. Pure. */
export function wouldApprove(csr: CsrObject): boolean {
  const user = csr.spec?.username ?? '';
  const groups = csr.spec?.groups ?? [];
  switch (csr.spec?.signerName) {
    case KUBELET_CLIENT_SIGNER:
      return (
        (user.startsWith('system:bootstrap:') && groups.includes('system:bootstrappers')) ||
        (user.startsWith('system:node:') && groups.includes('system:nodes'))
      );
    case KUBELET_SERVING_SIGNER:
      return user.startsWith('system:node:') && groups.includes('system:nodes');
    case KUBE_APISERVER_CLIENT_SIGNER:
      return (
        (csr.metadata?.name ?? '').startsWith(CSR_NAME_PREFIX) &&
        user.startsWith('system:bootstrap:') &&
        groups.includes('system:bootstrappers')
      );
    default:
      return false;
  }
}

export function startKubeletCsrSigner(env: Envtest): KubeletCsrSigner {
  const approved: string[] = [];
  const signed: string[] = [];
  const watch = watchCsrs(env, 'kubelet-csr-signer', async (csr, signing) => {
    const signer = csr.spec?.signerName ?? '';
    if (!wouldApprove(csr) || isDeniedOrFailed(csr) || csr.status?.certificate) return;
    const key = `${signer} ${csr.metadata?.name ?? ''}`;
    if (!isApproved(csr)) {
      if (approved.includes(key)) return;
      approved.push(key);
      await signing.client.update(
        RESOURCE.certificateSigningRequest,
        {
          ...csr,
          status: {
            ...csr.status,
            conditions: [
              ...(csr.status?.conditions ?? []),
              {
                type: 'Approved',
                status: 'True',
                reason: 'AutoApproved',
                message: 'approved by the test landscape',
              },
            ],
          },
        },
        { subresource: 'approval' },
      );
      return;
    }
    if (signed.includes(key)) return;
    signed.push(key);
    // the serving certificate keeps the names (the node's IP and hostname) the kubelet asked for
    await signing.sign(csr, EXTENSIONS[signer]!, signer === KUBELET_SERVING_SIGNER);
  });
  return { approved, signed, stop: () => watch.stop() };
}
