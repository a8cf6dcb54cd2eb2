/**
 * Writing and removing the registries' hosts.toml files (registry-hosts.ts). Desired registries
 * are written in the commit half before the steps, those with a readiness probe once it succeeded
 * (registry-probe.ts); the directories of dropped upstreams are
 * removed after the unit commands, as upstream removes them after its wait for the registries.
 */
import { rm } from 'node:fs/promises';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { ensureDir } from '../fs/ensure-dir.js';
import type { HostPaths } from './host-paths.js';
import { hostsToml, type RegistryChanges, registryDir } from './registry-hosts.js';
import { probeRegistry, type RegistryProbeOptions } from './registry-probe.js';

export const HOSTS_TOML_MODE = 0o644;

/** An upstream names one directory under certs.d: never a path leading elsewhere. */
function checkedDir(upstream: string): string {
  if (!upstream || upstream === '.' || upstream === '..' || upstream.includes('/'))
    throw new Error(`registry upstream ${JSON.stringify(upstream)} does not name a directory of certs.d`);
  return registryDir(upstream);
}

/** Checked in the prepare half: a bad upstream fails the apply before anything is written. */
export function checkRegistryUpstreams(changes: RegistryChanges): void {
  for (const registry of changes.desired) checkedDir(registry.upstream);
}

type Registry = RegistryChanges['desired'][number];

async function writeRegistry(host: HostPaths, registry: Registry): Promise<void> {
  const dir = host.path(checkedDir(registry.upstream));
  await ensureDir(dir);
  await writeFileAtomic(`${dir}/hosts.toml`, hostsToml(registry), HOSTS_TOML_MODE);
}

/** The registries needing no probe, written now (before the steps). */
export async function writeRegistries(host: HostPaths, changes: RegistryChanges): Promise<void> {
  for (const registry of changes.desired)
    if (!changes.toProbe.includes(registry.upstream)) await writeRegistry(host, registry);
}

/**
 * The registries to probe, each written once its hosts answered (registry-probe.ts), all in
 * parallel; started with the steps and awaited after them, as upstream waits after the unit
 * commands. The promise never rejects unobserved: a failure waits for the caller's await.
 */
export function probeAndWriteRegistries(
  host: HostPaths,
  changes: RegistryChanges,
  options: RegistryProbeOptions = {},
): Promise<void> {
  const probed = changes.desired.filter((r) => changes.toProbe.includes(r.upstream));
  const all = Promise.all(
    probed.map(async (registry) => {
      await probeRegistry(host, registry, options);
      await writeRegistry(host, registry);
    }),
  ).then(() => undefined);
  all.catch(() => {});
  return all;
}

export async function removeDroppedRegistries(host: HostPaths, changes: RegistryChanges): Promise<void> {
  for (const upstream of changes.deleted)
    await rm(host.path(checkedDir(upstream)), { recursive: true, force: true });
}
