/**
 * Removing what the controller-manager created for a shoot: the OSCs (with Gardener's deletion
 * confirmation), in direct mode both object sets in the shoot, the ManagedResources with their
 * secrets, the shoot-access secrets and the migration state. Also the pruning of a
 * ManagedResource's secrets it no longer references.
 */
import type { V1Secret } from '@kubernetes/client-node';
import {
  ANNOTATION,
  DOWNLOADER_ACCESS,
  formatRfc3339Nano,
  LABEL,
  NAME,
  NODE_AGENT_ACCESS,
  type OperatingSystemConfig,
  VALITAIL_ACCESS,
} from '../../api/index.js';
import type { Clock } from '../../runtime/clock.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import type { Logger } from '../../runtime/logging.js';
import type { ObjectSetApi } from '../../seed/direct-apply/apply.js';
import type { ShootApplier } from '../../seed/direct-apply/shoot-applier.js';
import { deleteMigrationState } from '../../seed/migration-state/state.js';

const MANAGED_RESOURCES = [NAME.managedResourceNodeAgent, NAME.managedResourceLegacy] as const;

/** Gardener's extension objects refuse deletion without the confirmation annotation. */
export async function deleteOsc(
  seed: Pick<KubeClient, 'mergePatch' | 'delete'>,
  osc: OperatingSystemConfig,
  clock: Clock,
  log: Logger,
): Promise<void> {
  const ref = { name: osc.metadata.name ?? '', namespace: osc.metadata.namespace };
  try {
    await seed.mergePatch(RESOURCE.operatingSystemConfig, ref, {
      metadata: {
        annotations: {
          [ANNOTATION.confirmDeletion]: 'true',
          [ANNOTATION.timestamp]: formatRfc3339Nano(new Date(clock.now())),
        },
      },
    });
  } catch (e) {
    if (isApiStatus(e, 404)) return;
    throw e;
  }
  if (await seed.delete(RESOURCE.operatingSystemConfig, ref))
    log.info({ osc: ref.name }, 'Deleted stale OperatingSystemConfig');
}

/** Deletes the secrets of a ManagedResource (by its label) that it does not reference. */
export async function pruneManagedResourceSecrets(
  seed: Pick<KubeClient, 'list' | 'delete'>,
  namespace: string,
  managedResource: string,
  referenced: readonly string[],
): Promise<void> {
  const keep = new Set(referenced);
  const secrets = await seed.list<V1Secret>(RESOURCE.secret, {
    namespace,
    labelSelector: `${LABEL.managedResource}=${managedResource}`,
  });
  for (const s of secrets)
    if (!keep.has(s.metadata?.name ?? ''))
      await seed.delete(RESOURCE.secret, { name: s.metadata?.name ?? '', namespace });
}

export interface CleanUpContext {
  readonly namespace: string;
  readonly seed: Pick<KubeClient, 'list' | 'mergePatch' | 'delete'>;
  /** The live OSCs of the namespace (seed cache). */
  oscs(): OperatingSystemConfig[];
  /** Direct mode: the shoot, when it can be reached. */
  readonly shoot?: ObjectSetApi;
  readonly applier?: ShootApplier;
  readonly clock: Clock;
  readonly log: Logger;
  /** Runs one write (naming it for the Warning event when it fails). */
  write<T>(what: string, run: () => Promise<T>): Promise<T>;
}

/** Everything we created for the shoot; returns how many OSCs still wait for their extension. */
export async function cleanUpShoot(c: CleanUpContext): Promise<number> {
  const { namespace, seed, log } = c;
  for (const osc of c.oscs())
    if (!osc.metadata.deletionTimestamp)
      await c.write(`OperatingSystemConfig ${namespace}/${osc.metadata.name}`, () =>
        deleteOsc(seed, osc, c.clock, log),
      );
  if (c.applier) {
    if (c.shoot) {
      for (const set of MANAGED_RESOURCES)
        await c.write(`the shoot objects of ${namespace}`, () => c.applier!.remove(c.shoot!, set, log));
    } else log.info('Shoot not reachable: its objects stay (the shoot is being deleted with its Cluster)');
  }
  for (const mr of MANAGED_RESOURCES)
    await c.write(`ManagedResource ${namespace}/${mr}`, async () => {
      await seed.delete(RESOURCE.managedResource, { name: mr, namespace });
      await pruneManagedResourceSecrets(seed, namespace, mr, []);
    });
  for (const { name } of [NODE_AGENT_ACCESS, DOWNLOADER_ACCESS, VALITAIL_ACCESS])
    await c.write(`Secret ${namespace}/${NAME.shootAccessPrefix}${name}`, () =>
      seed.delete(RESOURCE.secret, { name: `${NAME.shootAccessPrefix}${name}`, namespace }),
    );
  await c.write(`the migration state of ${namespace}`, () => deleteMigrationState(seed, namespace));
  const remaining = c.oscs().length;
  if (remaining === 0) log.info('Removed the node configuration of the deleted Cluster');
  return remaining;
}
