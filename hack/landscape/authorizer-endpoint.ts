/**
 * Where a landscape's shoot kube-apiserver reaches the node agent authorizer, as on a landscape with
 * per-node identities (docs/security.md): a free port on 127.0.0.1, a serving certificate for it,
 * and the bearer token the API server presents, seen from both sides (the API server's
 * authorization configuration, the controller-manager's `nodeAgent.authorizer`).
 */
import { authorizerUrl } from '../../charts/controller-manager/authorization-config.js';
import { type ServingCertificate, servingCertificate } from './csr-signer.js';
import { type EnvtestOptions, freePort } from './envtest.js';

export interface AuthorizerEndpoint {
  readonly tls: ServingCertificate;
  readonly port: number;
  /** What the shoot's API server is started with to ask the authorizer. */
  readonly envtest: Required<Pick<EnvtestOptions, 'nodeAgentAuthorizer'>>;
  /** The controller-manager configuration's `nodeAgent.authorizer`. */
  readonly serving: {
    readonly bindAddress: string;
    readonly port: number;
    readonly certFile: string;
    readonly keyFile: string;
    readonly tokenKeyFile: string;
  };
}

export async function authorizerEndpoint(o: {
  /** The shoot namespace the authorizer's URL names and the API server's token is for. */
  readonly shootNamespace: string;
  /** Where the certificate's directory is made (default: the temporary directory). */
  readonly parentDir?: string;
  /** A certificate made before (default: a new one). */
  readonly tls?: ServingCertificate;
}): Promise<AuthorizerEndpoint> {
  const tls = o.tls ?? servingCertificate(o.parentDir);
  const port = await freePort();
  return {
    tls,
    port,
    envtest: {
      nodeAgentAuthorizer: {
        url: authorizerUrl(`https://127.0.0.1:${port}`, o.shootNamespace),
        caPem: tls.caPem,
        token: tls.callerToken(o.shootNamespace),
      },
    },
    serving: {
      bindAddress: '127.0.0.1',
      port,
      certFile: tls.certFile,
      keyFile: tls.keyFile,
      tokenKeyFile: tls.tokenKeyFile,
    },
  };
}
