/**
 * Which of our shoot controllers act for a Cluster. In the Gardener v1.150.0 contract the
 * reconciliation delay, node agent CSR approval and node agent authorization belong to
 * gardener-resource-manager (gardener v1.150.0
 * `pkg/resourcemanager/controller/node/agentreconciliationdelay`, `pkg/resourcemanager/controller/csrapprover`,
 * `pkg/resourcemanager/webhook/nodeagentauthorizer`; the delay moved there in v1.94.0, gardener/gardener#9672).
 * Ours must not fight it: for a Cluster whose contract is v1.150.0 they stay out unless
 * configured on (`controllers.<controller>.inV150Mode`, docs/controller-manager.md). A Cluster
 * whose contract annotation is unknown gets none of them either: its contract is never guessed,
 * and the operatingsystemconfig controller reports it. Pure.
 */
import { chooseGardenerVersion, type GardenerVersion } from '../api/index.js';

/** The controllers whose work gardener-resource-manager does in the v1.150.0 contract. */
export const RESOURCE_MANAGER_OWNED = ['nodeDelay', 'nodeAgentCsrApprover', 'nodeAgentAuthorizer'] as const;

export type ResourceManagerOwned = (typeof RESOURCE_MANAGER_OWNED)[number];

export interface OwnedControllerSettings {
  /** The controller-manager's `gardenerVersion`: the contract of a Cluster without the annotation. */
  readonly gardenerVersion: GardenerVersion;
  /** `controllers.<controller>.inV150Mode`: act for v1.150.0 Clusters too. */
  readonly inV150Mode: boolean;
}

/** Whether the controller acts for a Cluster with these annotations. */
export function actsForCluster(
  clusterAnnotations: Readonly<Record<string, string>> | null | undefined,
  settings: OwnedControllerSettings,
): boolean {
  const choice = chooseGardenerVersion(clusterAnnotations, settings.gardenerVersion);
  if (!choice.ok) return false;
  return choice.version === 'v1.91.4' || settings.inV150Mode;
}
