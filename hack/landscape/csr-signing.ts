/**
 * What the test landscape's certificate signers share (envtest runs no kube-controller-manager):
 * an informer on CertificateSigningRequests that hands each one to a signer's decision, and the
 * signing itself, with the environment's client CA (the CA the API server trusts), as
 * kube-controller-manager's csrsigning controller does (kubernetes v1.34.4
 * pkg/controller/certificates/signer): the requested duration rounded up to whole days (openssl's
 * unit), the extensions the signer's kind asks for, the certificate written into the status.
 * Users: csr-signer.ts (node agent identities), hack/real-kubelet/kubelet-csr-signer.ts (kubelets).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CsrObject } from '../../api/index.js';
import { Informer } from '../../runtime/kube/informer.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { collectionPath, RESOURCE } from '../../runtime/kube/resource.js';
import type { Envtest } from './envtest.js';

export const CLIENT_AUTH = 'keyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n';

export interface CsrSigning {
  readonly client: KubeClient;
  /**
   * Signs `csr` with the client CA for the extensions given (an openssl extfile's text), keeping
   * the names the request asked for when `copyNames`, and writes the certificate into its status.
   */
  sign(csr: CsrObject, extensions: string, copyNames?: boolean): Promise<void>;
}

export interface CsrWatch {
  stop(): Promise<void>;
}

/** Hands every CertificateSigningRequest added or updated to `handle`, until stopped. */
export function watchCsrs(
  env: Envtest,
  label: string,
  handle: (csr: CsrObject, signing: CsrSigning) => Promise<void>,
): CsrWatch {
  const ca = env.clientCa;
  if (!ca) throw new Error(`${env.name}: no client CA to sign with (an existing cluster signs itself)`);
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  const http = new KubeHttp(env.kubeConfig);
  const client = new KubeClient(http);
  const abort = new AbortController();
  const signing: CsrSigning = {
    client,
    async sign(csr, extensions, copyNames = false) {
      const name = csr.metadata?.name ?? '';
      const days = Math.max(1, Math.ceil((csr.spec?.expirationSeconds ?? 365 * 86400) / 86400));
      const request = join(dir, `${name}.csr`);
      const extfile = join(dir, `${name}.cnf`);
      writeFileSync(request, Buffer.from(csr.spec?.request ?? '', 'base64'));
      writeFileSync(extfile, extensions);
      execFileSync(
        'openssl',
        [
          ...['x509', '-req', '-in', request, '-CA', ca.certFile, '-CAkey', ca.keyFile],
          ...['-set_serial', `0x${randomBytes(16).toString('hex')}`, '-days', String(days)],
          ...(copyNames ? ['-copy_extensions', 'copyall'] : []),
          ...['-extfile', extfile, '-out', join(dir, `${name}.crt`)],
        ],
        { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      const certificate = readFileSync(join(dir, `${name}.crt`)).toString('base64');
      await client.update(
        RESOURCE.certificateSigningRequest,
        { ...csr, status: { ...csr.status, certificate } },
        { subresource: 'status' },
      );
    },
  };
  const informer = new Informer<CsrObject>({
    http,
    path: collectionPath(RESOURCE.certificateSigningRequest),
  });
  const onChange = (csr: CsrObject) =>
    void handle(csr, signing).catch((e) => process.stderr.write(`${label}: ${(e as Error).message}\n`));
  informer.on({ add: onChange, update: (_, csr) => onChange(csr) });
  informer.start(abort.signal);
  return {
    async stop() {
      abort.abort();
      await informer.stopped();
      await http.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const conditions = (csr: CsrObject) => csr.status?.conditions ?? [];

/** Approved and not denied or failed. */
export const isApproved = (csr: CsrObject) =>
  conditions(csr).some((c) => c.type === 'Approved' && c.status !== 'False');
export const isDeniedOrFailed = (csr: CsrObject) =>
  conditions(csr).some((c) => c.type === 'Denied' || c.type === 'Failed');
