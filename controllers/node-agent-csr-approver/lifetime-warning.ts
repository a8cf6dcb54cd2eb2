/**
 * The approver denies a node agent request asking for more than `nodeAgent.maxCertificateLifetime`
 * (decide.ts), and our agent asks for NODE_AGENT_CERTIFICATE_LIFETIME_SECONDS (720h). A maximum
 * below that would deny every agent's identity: each denial says so (the CSR's condition and a
 * Warning event), but the configuration is where the cause is, so the controller-manager says it
 * when it starts (docs/security.md).
 */
import { NODE_AGENT_CERTIFICATE_LIFETIME_SECONDS } from '../../api/index.js';

/** The warning for a maximum lifetime (milliseconds) below what the agents ask for, if any. */
export function maxLifetimeWarning(maxCertificateLifetimeMs: number): string | undefined {
  const maxSeconds = Math.floor(maxCertificateLifetimeMs / 1000);
  if (maxSeconds >= NODE_AGENT_CERTIFICATE_LIFETIME_SECONDS) return undefined;
  return `nodeAgent.maxCertificateLifetime is ${maxSeconds}s, less than the ${NODE_AGENT_CERTIFICATE_LIFETIME_SECONDS}s (720h) node agents ask for: every node agent's certificate signing request will be denied (docs/security.md)`;
}
