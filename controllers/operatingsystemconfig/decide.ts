/**
 * The operatingsystemconfig controller's decisions (pure), in the order of a reconcile (gardener
 * v1.91.4 pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go,
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go): what happens to the Cluster
 * (finalizer, clean-up, hand-over), what the render needs from the migration, which rendered
 * objects differ from the live ones (only those are written, so a shoot where nothing changed costs
 * reads only), whether the OS extension reported every OSC ready, what the ManagedResource needs,
 * and which OSCs are stale.
 */
import type {
  ClusterObject,
  GardenerVersion,
  ManagedResource,
  OperatingSystemConfig,
} from '../../api/index.js';
import { mergePatchChanges } from '../../seed/kube/seed-writes.js';
import { legacyNodesRemain, type MigrationState } from '../../seed/migration-state/state.js';
import { oscReadiness } from './osc-readiness.js';
import { sameDesiredState } from './same-desired-state.js';

export const CLUSTER_FINALIZER = 'node-configuration.gardener.cloud/controller-manager';

export type ClusterDecision =
  /** Gone, or being deleted without our finalizer: nothing of ours to do. */
  | { readonly action: 'ignore' }
  /** Being deleted with our finalizer: remove what we created, then the finalizer. */
  | { readonly action: 'clean-up' }
  /** No longer selected: hand the shoot over untouched (to a gardenlet, say); only our finalizer goes. */
  | { readonly action: 'release'; readonly removeFinalizer: boolean }
  | { readonly action: 'reconcile'; readonly addFinalizer: boolean };

export function decideCluster(live: ClusterObject | undefined, selected: boolean): ClusterDecision {
  if (!live) return { action: 'ignore' };
  const ours = live.metadata?.finalizers?.includes(CLUSTER_FINALIZER) ?? false;
  if (live.metadata?.deletionTimestamp) return ours ? { action: 'clean-up' } : { action: 'ignore' };
  if (!selected) return { action: 'release', removeFinalizer: ours };
  return { action: 'reconcile', addFinalizer: !ours };
}

/** The finalizers after adding or removing ours (others stay in their order). */
export function finalizersWith(live: ClusterObject, present: boolean): string[] {
  const others = (live.metadata?.finalizers ?? []).filter((f) => f !== CLUSTER_FINALIZER);
  return present ? [...others, CLUSTER_FINALIZER] : others;
}

/**
 * What the render takes from the migration. With the gate on, a shoot whose migration controller
 * has not recorded a phase yet waits for it (it decides whether legacy nodes exist); with the gate
 * off legacy nodes always remain.
 */
export type MigrationInput =
  | { readonly wait: true }
  | { readonly wait: false; readonly legacyNodes: boolean }
  /** The Cluster's contract cannot be rendered for it yet; the message says why and what to do. */
  | { readonly wait: false; readonly blocked: string };

export function migrationInput(
  useGardenerNodeAgent: boolean,
  state: MigrationState | undefined,
  gardenerVersion: GardenerVersion = 'v1.91.4',
): MigrationInput {
  if (gardenerVersion === 'v1.150.0') {
    // every node of v1.150.0 runs the agent (the migration ended in v1.92.0): a shoot whose legacy
    // nodes remain would lose their executor, so it stays on v1.91.4 until its migration is done
    if (!useGardenerNodeAgent)
      return { wait: false, blocked: 'the v1.150.0 contract needs the feature gate UseGardenerNodeAgent' };
    if (state && legacyNodesRemain(true, state))
      return {
        wait: false,
        blocked: `legacy nodes remain (migration phase ${state.phase}): the v1.150.0 contract has no cloud-config-downloader; the shoot switches once its migration is done`,
      };
    return { wait: false, legacyNodes: false };
  }
  if (useGardenerNodeAgent && !state) return { wait: true };
  return { wait: false, legacyNodes: legacyNodesRemain(useGardenerNodeAgent, state) };
}

interface Named {
  readonly metadata?: { readonly name?: string };
}

/** The rendered objects a merge patch would change (or that do not exist): only these are written. */
export function objectsToWrite<T extends Named>(desired: readonly T[], live: (name: string) => unknown): T[] {
  return desired.filter((o) => {
    const current = live(o.metadata?.name ?? '');
    return current === undefined || mergePatchChanges(o, current);
  });
}

/**
 * The OSCs to write: those whose spec or pool label differs from the live one (an OS extension's
 * status write never starts another round). `current` holds what readiness is judged against:
 * the live OSC when it is unchanged, the written one otherwise.
 */
export function oscWrites(
  desired: readonly OperatingSystemConfig[],
  live: ReadonlyMap<string, OperatingSystemConfig>,
): { readonly write: OperatingSystemConfig[]; readonly current: Map<string, OperatingSystemConfig> } {
  const write: OperatingSystemConfig[] = [];
  const current = new Map<string, OperatingSystemConfig>();
  for (const osc of desired) {
    const name = osc.metadata.name ?? '';
    const existing = live.get(name);
    if (existing && sameDesiredState(existing, osc)) current.set(name, existing);
    else {
      write.push(osc);
      current.set(name, osc);
    }
  }
  return { write, current };
}

export interface Readiness {
  /** The live OSCs the OS extension reconciled, by name. */
  readonly ready: Map<string, OperatingSystemConfig>;
  /** `<name>: <reason>` of every OSC not ready yet. */
  readonly waitingFor: string[];
  /** `<name>: <error>` of OSCs whose extension reported an error (they will not become ready by waiting). */
  readonly errors: string[];
}

/**
 * Whether the OS extension reconciled the current OSCs (`current` of `oscWrites`), judged on the
 * live ones. An OSC written in this reconcile is not ready before the extension saw it.
 */
export function readiness(
  current: ReadonlyMap<string, OperatingSystemConfig>,
  live: ReadonlyMap<string, OperatingSystemConfig>,
  written: ReadonlySet<string> = new Set(),
): Readiness {
  const ready = new Map<string, OperatingSystemConfig>();
  const waitingFor: string[] = [];
  const errors: string[] = [];
  for (const [name, osc] of current) {
    if (written.has(name)) {
      waitingFor.push(`${name}: written, the OS extension has not seen it yet`);
      continue;
    }
    const r = oscReadiness(osc, live.get(name));
    if (r.ready) ready.set(name, live.get(name)!);
    else {
      waitingFor.push(`${name}: ${r.reason}`);
      if (!r.retriable) errors.push(`${name}: ${r.reason}`);
    }
  }
  return { ready, waitingFor, errors };
}

export interface ManagedResourceWrites {
  /** Checksum-named (immutable) secrets to create unless they exist. */
  readonly createSecrets: boolean;
  /** The ManagedResource to create or merge-patch. */
  readonly writeManagedResource: boolean;
  /** Delete the ManagedResource's secrets it no longer references. */
  readonly pruneSecrets: boolean;
}

/**
 * What a ManagedResource and its secrets need. Its secrets are named by checksum and written
 * before it, so a live ManagedResource that already is the desired one references secrets that
 * exist: nothing to write, nothing to prune.
 */
export function managedResourceWrites(
  desired: ManagedResource,
  live: ManagedResource | undefined,
): ManagedResourceWrites {
  const changed = live === undefined || mergePatchChanges(desired, live);
  return { createSecrets: changed, writeManagedResource: changed, pruneSecrets: changed };
}

/** Live OSCs that no rendered OSC names (removed pools, renamed keys). */
export function staleOscs(
  desired: readonly OperatingSystemConfig[],
  live: Iterable<OperatingSystemConfig>,
): OperatingSystemConfig[] {
  const wanted = new Set(desired.map((o) => o.metadata.name));
  return [...live].filter((o) => !wanted.has(o.metadata.name) && !o.metadata.deletionTimestamp);
}
