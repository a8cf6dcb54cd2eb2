/**
 * What gardenlet v1.150.0 writes into the seed for the node configuration of one shoot, from the
 * contents of every pool's OSCs (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go and
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go `DeployManagedResourceForGardenerNodeAgent`):
 * the OSC pair per pool, one ManagedResource secret per pool holding its OSC secret, the secret
 * with the three bootstrap ClusterRoleBindings, and ManagedResource `shoot-gardener-node-agent`.
 * No shoot-access secret for the agent, no downloader, executor or migration objects.
 */
import { type Instant, NAME } from '../api/index.js';
import type { ComponentOutput } from '../components/component.js';
import { managedResource } from './managed-resource/managed-resource.js';
import { managedResourceSecretV150 } from './managed-resource/managed-resource-secret-v150.js';
import type { SeedSecrets } from './managed-resource/osc-secret.js';
import { oscSecretV150, type StrippableOscV150 } from './managed-resource/osc-secret-v150.js';
import { nodeAgentRbacV150 } from './managed-resource/rbac-v150.js';
import { registryDataV150 } from './managed-resource/registry-v150.js';
import { type OscV150Pool, oscObjectV150 } from './operating-system-config/osc-object-v150.js';

export interface PoolContentsV150 {
  readonly pool: OscV150Pool;
  readonly provision: ComponentOutput;
  readonly reconcile: ComponentOutput;
}

export interface SeedObjectsV150 {
  readonly seed: Record<string, unknown>[];
  /** The objects inside the ManagedResource secrets (the OSC secrets and the RBAC), before gardener-resource-manager injects its labels. */
  readonly shoot: Record<string, unknown>[];
}

export function seedObjectsV150(
  pools: readonly PoolContentsV150[],
  namespace: string,
  now: Instant,
  secrets: SeedSecrets,
  /** Reconcile OSCs as the OS extension left them (with status), by name; default: as rendered. */
  reconciledOscs?: ReadonlyMap<string, unknown>,
  /** Further shoot objects of the ManagedResource, each set in a secret of its own (by logical name). */
  moreShootObjects: readonly { readonly name: string; readonly objects: Record<string, unknown>[] }[] = [],
): SeedObjectsV150 {
  const seed: Record<string, unknown>[] = [];
  const shoot: Record<string, unknown>[] = [];
  const managedSecrets: Record<string, unknown>[] = [];
  for (const { pool, provision, reconcile } of pools) {
    const reconcileOsc = oscObjectV150(pool, 'reconcile', reconcile, namespace, now);
    seed.push(oscObjectV150(pool, 'provision', provision, namespace, now), reconcileOsc);
    // the Go-shaped OSC object carries the spec and status the stripping reads
    const reconciled =
      reconciledOscs?.get(String((reconcileOsc.metadata as { name: string }).name)) ?? reconcileOsc;
    const oscSecret = oscSecretV150(
      reconciled as unknown as StrippableOscV150,
      pool.key,
      pool.pool,
      secrets,
    ) as unknown as Record<string, unknown>;
    shoot.push(oscSecret);
    managedSecrets.push(
      managedResourceSecretV150(
        NAME.managedResourceNodeAgent,
        `${NAME.managedResourceNodeAgent}-${pool.pool}`,
        namespace,
        registryDataV150([oscSecret]),
      ) as unknown as Record<string, unknown>,
    );
  }
  const rbac = nodeAgentRbacV150();
  shoot.push(...rbac);
  managedSecrets.push(
    managedResourceSecretV150(
      NAME.managedResourceNodeAgent,
      NAME.rbacLogicalNodeAgent,
      namespace,
      registryDataV150(rbac),
    ) as unknown as Record<string, unknown>,
  );
  for (const more of moreShootObjects) {
    shoot.push(...more.objects);
    managedSecrets.push(
      managedResourceSecretV150(
        NAME.managedResourceNodeAgent,
        more.name,
        namespace,
        registryDataV150(more.objects),
      ) as unknown as Record<string, unknown>,
    );
  }
  const names = managedSecrets.map((s) => (s as { metadata: { name: string } }).metadata.name);
  seed.push(
    ...managedSecrets,
    managedResource(NAME.managedResourceNodeAgent, namespace, names) as unknown as Record<string, unknown>,
  );
  return { seed, shoot };
}
