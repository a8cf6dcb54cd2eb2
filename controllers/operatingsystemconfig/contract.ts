/**
 * Which contract a selected Cluster is rendered in: its annotation over the controller-manager's
 * `gardenerVersion`. A value we do not know, or a contract the renderer refuses as a whole, is a
 * Warning event and no render, never bytes of the wrong contract. Pure.
 */
import { chooseGardenerVersion, GARDENER_VERSION_ANNOTATION, type GardenerVersion } from '../../api/index.js';
import { ContractNotRenderedError, RENDERABLE_GARDENER_VERSIONS } from '../../charts/contract-support.js';

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
  if (!RENDERABLE_GARDENER_VERSIONS.includes(choice.version))
    return {
      render: false,
      reason: 'UnsupportedGardenerVersion',
      message: new ContractNotRenderedError(choice.version).message,
    };
  return { render: true, gardenerVersion: choice.version };
}
