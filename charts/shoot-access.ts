/** The seed's shoot-access secrets for node configuration (gardener v1.91.4 pkg/utils/gardener/shoot.go). */
import {
  DOWNLOADER_ACCESS,
  NODE_AGENT_ACCESS,
  NODE_AGENT_IDENTITY,
  type NodeAgentIdentityMode,
  type ShootAccessSecret,
  shootAccessSecret,
  VALITAIL_ACCESS,
} from '../api/index.js';

export interface ShootAccessInputs {
  readonly namespace: string;
  readonly useGardenerNodeAgent: boolean;
  /** Legacy nodes remain (gate off, or a migration still running). */
  readonly legacyNodes: boolean;
  readonly nodeLogging: boolean;
  /** With per-node identities the agents need no shared ServiceAccount token. */
  readonly nodeAgentIdentity: NodeAgentIdentityMode;
}

export function shootAccessSecrets(i: ShootAccessInputs): ShootAccessSecret[] {
  const secrets: ShootAccessSecret[] = [];
  if (i.legacyNodes) secrets.push(shootAccessSecret({ ...DOWNLOADER_ACCESS, namespace: i.namespace }));
  if (i.useGardenerNodeAgent && i.nodeAgentIdentity === NODE_AGENT_IDENTITY.serviceAccount)
    secrets.push(shootAccessSecret({ ...NODE_AGENT_ACCESS, namespace: i.namespace }));
  if (i.nodeLogging) secrets.push(shootAccessSecret({ ...VALITAIL_ACCESS, namespace: i.namespace }));
  return secrets;
}
