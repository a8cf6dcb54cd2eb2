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
 * - signs them with the environment's client CA, as kube-controller-manager's csrsigning controller
 *   does with the cluster's CA: client certificates for client auth, serving certificates for
 *   server auth with the names the kubelet asked for.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CsrObject, KUBE_APISERVER_CLIENT_SIGNER } from '../../api/index.js';
import { CSR_NAME_PREFIX } from '../../node-agent/identity/certificate-request.js';
import { Informer } from '../../runtime/kube/informer.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { collectionPath, RESOURCE } from '../../runtime/kube/resource.js';
import type { Envtest } from '../landscape/envtest.js';

export const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';

export interface KubeletCsrSigner {
  /** `<signer> <name>` of every request approved so far, in order. */
  readonly approved: string[];
  readonly signed: string[];
  stop(): Promise<void>;
}

const conditions = (csr: CsrObject) => csr.status?.conditions ?? [];
const isApproved = (csr: CsrObject) =>
  conditions(csr).some((c) => c.type === 'Approved' && c.status !== 'False');
const isFinal = (csr: CsrObject) => conditions(csr).some((c) => c.type === 'Denied' || c.type === 'Failed');

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
  const ca = env.clientCa;
  if (!ca) throw new Error(`${env.name}: no client CA to sign with`);
  const dir = mkdtempSync(join(tmpdir(), 'kubelet-csr-signer-'));
  const extensions = {
    [KUBELET_CLIENT_SIGNER]:
      'keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n',
    [KUBELET_SERVING_SIGNER]:
      'keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n',
    [KUBE_APISERVER_CLIENT_SIGNER]: 'keyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
  };
  for (const [signer, text] of Object.entries(extensions)) writeFileSync(join(dir, fileOf(signer)), text);
  const http = new KubeHttp(env.kubeConfig);
  const client = new KubeClient(http);
  const abort = new AbortController();
  const approved: string[] = [];
  const signed: string[] = [];

  const handle = async (csr: CsrObject) => {
    const name = csr.metadata?.name ?? '';
    const signer = csr.spec?.signerName ?? '';
    if (!wouldApprove(csr) || isFinal(csr) || csr.status?.certificate) return;
    const key = `${signer} ${name}`;
    if (!isApproved(csr)) {
      if (approved.includes(key)) return;
      approved.push(key);
      await client.update(
        RESOURCE.certificateSigningRequest,
        {
          ...csr,
          status: {
            ...csr.status,
            conditions: [
              ...conditions(csr),
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
    const days = Math.max(1, Math.ceil((csr.spec?.expirationSeconds ?? 365 * 86400) / 86400));
    const request = join(dir, `${name}.csr`);
    writeFileSync(request, Buffer.from(csr.spec?.request ?? '', 'base64'));
    execFileSync(
      'openssl',
      [
        ...['x509', '-req', '-in', request, '-CA', ca.certFile, '-CAkey', ca.keyFile],
        ...['-set_serial', `0x${randomBytes(16).toString('hex')}`, '-days', String(days)],
        // the serving certificate keeps the names (the node's IP and hostname) the kubelet asked for
        ...(signer === KUBELET_SERVING_SIGNER ? ['-copy_extensions', 'copyall'] : []),
        ...['-extfile', join(dir, fileOf(signer)), '-out', join(dir, `${name}.crt`)],
      ],
      { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const certificate = readFileSync(join(dir, `${name}.crt`)).toString('base64');
    await client.update(
      RESOURCE.certificateSigningRequest,
      { ...csr, status: { ...csr.status, certificate } },
      { subresource: 'status' },
    );
  };

  const informer = new Informer<CsrObject>({
    http,
    path: collectionPath(RESOURCE.certificateSigningRequest),
  });
  const onChange = (csr: CsrObject) =>
    void handle(csr).catch((e) => process.stderr.write(`kubelet-csr-signer: ${(e as Error).message}\n`));
  informer.on({ add: onChange, update: (_, csr) => onChange(csr) });
  informer.start(abort.signal);
  return {
    approved,
    signed,
    async stop() {
      abort.abort();
      await informer.stopped();
      await http.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function fileOf(signer: string): string {
  return `${signer.replaceAll(/[^a-z0-9]+/g, '-')}.cnf`;
}
