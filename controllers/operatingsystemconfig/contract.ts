/**
 * Which contract a selected Cluster is rendered in: its annotation over the controller-manager's
 * `gardenerVersion`. A value we do not know is a Warning event and no render, never bytes of the
 * wrong contract. Pure.
 */
import { chooseGardenerVersion, GARDENER_VERSION_ANNOTATION, type GardenerVersion } from '../../api/index.js';

export type ContractDecision =
  | { render: true; gardenerVersion: GardenerVersion }
  | { render: false; reason: 'UnsupportedGardenerVersion'; message: string };

export function decideContract(
  annotations: Readonly<Record<string, string>> | null | undefined,
  configured: GardenerVersion,
): ContractDecision {
  const choice = chooseGardenerVersion(annotations, configured);
  if (!choice.ok)
    return {
      render: false,
      reason: 'UnsupportedGardenerVersion',
      message: `annotation ${GARDENER_VERSION_ANNOTATION}: ${choice.detail}`,
    };
  return { render: true, gardenerVersion: choice.version };
}
