/**
 * Step 4 of the reconcile, the shoot objects: what the OS extension produced for the legacy
 * executor (read from its result secrets), and in managedResource mode the ManagedResources with
 * their checksum-named secrets, written only when the live ManagedResource is not the rendered one.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { DATA_KEY, type ManagedResource, type OperatingSystemConfig } from '../../api/index.js';
import type { OsExtensionRendering } from '../../charts/managed-resource/legacy-executor.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { createIfAbsent, createOrMergePatch } from '../../seed/kube/seed-writes.js';
import { pruneManagedResourceSecrets } from './clean-up.js';
import { managedResourceWrites } from './decide.js';
import type { SeedObjects } from './rendered.js';

/** What the OS extension produced for each reconcile OSC (the legacy executor carries it). */
export async function osExtensionRenderings(
  seed: Pick<KubeClient, 'getIfExists'>,
  oscs: ReadonlyMap<string, OperatingSystemConfig>,
): Promise<(osc: OperatingSystemConfig) => OsExtensionRendering> {
  const out = new Map<string, OsExtensionRendering>();
  for (const osc of oscs.values()) {
    const ref = osc.status?.cloudConfig?.secretRef;
    if (osc.spec.purpose !== 'reconcile' || !ref) continue;
    const secret = await seed.getIfExists<V1Secret>(RESOURCE.secret, {
      name: ref.name,
      namespace: ref.namespace ?? osc.metadata.namespace ?? '',
    });
    out.set(osc.metadata.name ?? '', {
      cloudConfig: Buffer.from(secret?.data?.[DATA_KEY.cloudConfig] ?? '', 'base64').toString('utf8'),
      command: osc.status?.command,
      units: osc.status?.units ?? [],
      files: osc.status?.files ?? [],
    });
  }
  return (osc) => {
    const rendering = out.get(osc.metadata.name ?? '');
    if (!rendering) throw new Error(`no OS extension output for OperatingSystemConfig ${osc.metadata.name}`);
    return rendering;
  };
}

/** Runs one write, naming it (for the Warning event when it fails). */
export type Write = <T>(what: string, run: () => Promise<T>) => Promise<T>;

export async function applyManagedResources(
  seed: Pick<KubeClient, 'getIfExists' | 'create' | 'mergePatch' | 'list' | 'delete'>,
  namespace: string,
  rendered: SeedObjects,
  write: Write,
): Promise<void> {
  for (const mr of rendered.managedResources) {
    const name = mr.metadata.name ?? '';
    const live = await seed.getIfExists<ManagedResource>(RESOURCE.managedResource, { name, namespace });
    const writes = managedResourceWrites(mr, live);
    const referenced = mr.spec.secretRefs.map((r) => r.name);
    if (writes.createSecrets)
      for (const secret of rendered.managedResourceSecrets.filter((s) =>
        referenced.includes(s.metadata.name ?? ''),
      ))
        await write(`Secret ${namespace}/${secret.metadata.name}`, () =>
          createIfAbsent(seed, RESOURCE.secret, secret),
        );
    // secretRefs is a list the API replaces wholesale on a merge patch: exactly what we want
    if (writes.writeManagedResource)
      await write(`ManagedResource ${namespace}/${name}`, () =>
        createOrMergePatch(seed, RESOURCE.managedResource, mr),
      );
    if (writes.pruneSecrets)
      await write(`the stale secrets of ManagedResource ${namespace}/${name}`, () =>
        pruneManagedResourceSecrets(seed, namespace, name, referenced),
      );
  }
}
