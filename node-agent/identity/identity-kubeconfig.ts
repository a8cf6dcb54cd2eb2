/**
 * The per-node identity on disk: a kubeconfig (context `node-agent`, as upstream's later agents
 * write it) holding the API server, its CA and the client certificate with its key, mode 0600 in a
 * 0700 credentials directory, replaced atomically so a reader (the agent's own client, which
 * re-reads it when it changes) never sees a certificate without its key.
 */
import { X509Certificate } from 'node:crypto';
import { dirname } from 'node:path';
import { stringifyYaml } from '../../api/index.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { ensureDir } from '../fs/ensure-dir.js';

export const IDENTITY_CONTEXT = 'node-agent';

export interface IdentityKubeconfigInput {
  readonly server: string;
  /** The CA bundle as PEM; none: the system's trust store. */
  readonly caPem?: string;
  readonly certificatePem: string;
  readonly keyPem: string;
}

const b64 = (text: string) => Buffer.from(text).toString('base64');

export function identityKubeconfig(i: IdentityKubeconfigInput): string {
  return stringifyYaml({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': IDENTITY_CONTEXT,
    clusters: [
      {
        name: IDENTITY_CONTEXT,
        cluster: {
          server: i.server,
          ...(i.caPem ? { 'certificate-authority-data': b64(i.caPem) } : {}),
        },
      },
    ],
    contexts: [{ name: IDENTITY_CONTEXT, context: { cluster: IDENTITY_CONTEXT, user: IDENTITY_CONTEXT } }],
    users: [
      {
        name: IDENTITY_CONTEXT,
        user: { 'client-certificate-data': b64(i.certificatePem), 'client-key-data': b64(i.keyPem) },
      },
    ],
  });
}

export async function writeIdentityKubeconfig(file: string, i: IdentityKubeconfigInput): Promise<void> {
  await ensureDir(dirname(file), 0o700);
  await writeFileAtomic(file, identityKubeconfig(i), 0o600);
}

export interface CertificateValidity {
  /** Milliseconds since the epoch. */
  readonly notBefore: number;
  readonly notAfter: number;
  readonly subject: string;
}

/** The validity of the first certificate of a PEM bundle. */
export function certificateValidity(certificate: string | Buffer): CertificateValidity {
  const x509 = new X509Certificate(certificate);
  return {
    notBefore: Date.parse(x509.validFrom),
    notAfter: Date.parse(x509.validTo),
    subject: x509.subject,
  };
}
