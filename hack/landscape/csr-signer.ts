/**
 * What envtest lacks for per-node identities (no kube-controller-manager runs there): the signer
 * of `kubernetes.io/kube-apiserver-client` certificates, standing in for the kube-controller-
 * manager's csrsigning controller. It signs every approved, unsigned request for that signer, for
 * client auth (csr-signing.ts). Approval is not its business: the controller-manager's approver
 * decides. Also here: a serving certificate for the authorizer and bootstrap tokens.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { KUBE_APISERVER_CLIENT_SIGNER } from '../../api/index.js';
import {
  authorizerCallerToken,
  readTokenKey,
} from '../../charts/controller-manager/authorizer-caller-token.js';
import { CLIENT_AUTH, isApproved, isDeniedOrFailed, watchCsrs } from './csr-signing.js';
import type { Envtest } from './envtest.js';

function openssl(cwd: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export interface CsrSigner {
  /** Names of the requests signed so far. */
  readonly signed: string[];
  stop(): Promise<void>;
}

export function startCsrSigner(env: Envtest): CsrSigner {
  const signed: string[] = [];
  const watch = watchCsrs(env, 'csr-signer', async (csr, signing) => {
    const name = csr.metadata?.name ?? '';
    if (csr.spec?.signerName !== KUBE_APISERVER_CLIENT_SIGNER) return;
    if (!isApproved(csr) || isDeniedOrFailed(csr) || csr.status?.certificate || signed.includes(name)) return;
    signed.push(name);
    await signing.sign(csr, CLIENT_AUTH);
  });
  return { signed, stop: () => watch.stop() };
}

export interface ServingCertificate {
  readonly caPem: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** The key of the callers' bearer tokens (`nodeAgent.authorizer.tokenKeyFile`). */
  readonly tokenKeyFile: string;
  /** The bearer token of a shoot's kube-apiserver, derived from that key. */
  callerToken(shootNamespace: string): string;
  readonly dir: string;
}

/**
 * A CA and a serving certificate for 127.0.0.1 signed by it (the authorizer's endpoint) and the key
 * of the callers' bearer tokens, in a new directory under `parent`.
 */
export function servingCertificate(parent = tmpdir()): ServingCertificate {
  const dir = mkdtempSync(join(parent, 'authorizer-tls-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    dir,
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=authorizer-ca',
  );
  openssl(dir, 'req', ...ec, '-keyout', 'tls.key', '-out', 'tls.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    'tls.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-set_serial',
    `0x${randomBytes(16).toString('hex')}`,
    '-days',
    '2',
    '-extfile',
    'san.cnf',
    '-out',
    'tls.crt',
  );
  const tokenKeyFile = join(dir, 'token.key');
  writeFileSync(tokenKeyFile, `${randomBytes(48).toString('base64')}\n`);
  const tokenKey = readTokenKey(readFileSync(tokenKeyFile, 'utf8'), tokenKeyFile);
  return {
    caPem: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    certFile: join(dir, 'tls.crt'),
    keyFile: join(dir, 'tls.key'),
    tokenKeyFile,
    callerToken: (shootNamespace) => authorizerCallerToken(tokenKey, shootNamespace),
    dir,
  };
}

/** A bootstrap token (`<id>.<secret>`) as machine-controller-manager creates one per machine. */
export async function createBootstrapToken(env: Envtest, ttlSeconds = 3600): Promise<string> {
  const id = randomBytes(3).toString('hex');
  const secret = randomBytes(8).toString('hex');
  await env.kubeConfig.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace: 'kube-system',
    body: {
      metadata: { name: `bootstrap-token-${id}` },
      type: 'bootstrap.kubernetes.io/token',
      stringData: {
        'token-id': id,
        'token-secret': secret,
        expiration: new Date(Date.now() + ttlSeconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z'),
        'usage-bootstrap-authentication': 'true',
        'usage-bootstrap-signing': 'true',
      },
    },
  });
  return `${id}.${secret}`;
}
