/**
 * Names and checksums derived from inputs or bytes, recomputed by upstream's functions on our
 * data: OSC keys (Key/LegacyKey), ManagedResource secret names (a hash of their data), the bytes
 * of ManagedResource secrets (gardenlet's registry serialising our objects) and the OSC secrets'
 * `checksum/data-script`. These must agree exactly: no declaration covers them.
 */
import { parseYaml } from '../../../api/index.js';
import { effectiveVersion } from '../../../charts/values/worker-pool-context.js';
import type { Differences } from './difference.js';
import type { Oracle } from './oracle.js';
import type { RenderCase, RenderedPair } from './render-case.js';

interface Obj {
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations: Record<string, string> };
  data: Record<string, string>;
}

const decode = (b64: string) => Buffer.from(b64, 'base64');

export async function derivedNames(
  oracle: Oracle,
  d: Differences,
  c: RenderCase,
  pair: RenderedPair,
): Promise<void> {
  const seed = pair.ours.seed as unknown as Obj[];
  const workers = pair.cluster.shoot.spec.provider.workers.filter((w) => w.machine.image);
  const oscNames = seed.filter((o) => o.kind === 'OperatingSystemConfig').map((o) => String(o.metadata.name));
  const ourKeys = workers.map((w) => {
    const original = oscNames.find(
      (n) => n.endsWith(`-${w.machine.image!.name}-original`) && n.includes(`-${w.name}-`),
    );
    return original?.slice(0, -`-${w.machine.image!.name}-original`.length);
  });
  const mrSecrets = seed.filter((o) => o.kind === 'Secret' && o.metadata.labels?.['managed-resource']);
  const oscSecrets = (pair.ours.shoot as unknown as Obj[]).filter(
    (o) => o.kind === 'Secret' && o.data?.['osc.yaml'],
  );

  const names = await oracle.ask<{ keys: string[]; managedResourceSecrets: string[]; checksums: string[] }>(
    'names',
    {
      useGardenerNodeAgent: c.useGardenerNodeAgent,
      keys: workers.map((w) => {
        const v = effectiveVersion(pair.cluster, w);
        return { pool: w.name, version: `${v.major}.${v.minor}.${v.patch}`, cri: w.cri?.name };
      }),
      managedResourceSecrets: mrSecrets.map((s) => ({
        name: String(s.metadata.name).replace(/^managedresource-|-[0-9a-f]{8}$/g, ''),
        data: s.data,
      })),
      checksums: oscSecrets.map((s) => s.data['osc.yaml']),
    },
  );
  for (const [i, w] of workers.entries())
    d.compare(`OSC key of pool ${w.name}`, '', 'name', ourKeys[i], names.keys[i]);
  for (const [i, s] of mrSecrets.entries()) {
    d.compare(
      `ManagedResource secret ${s.metadata.name}`,
      '',
      'name',
      s.metadata.name,
      names.managedResourceSecrets[i],
    );
  }
  for (const [i, s] of oscSecrets.entries()) {
    const annotation = s.metadata.annotations['checksum/data-script'];
    d.compare(`OSC secret ${s.metadata.name}`, '', 'checksum/data-script', annotation, names.checksums[i]);
  }

  for (const s of mrSecrets) {
    const objects = Object.values(s.data).map((v) => parseYaml(decode(v).toString('utf8')));
    const registry = await oracle.ask<Record<string, string>>('registry', { objects });
    const ours = Object.fromEntries(Object.entries(s.data).map(([k, v]) => [k, decode(v).toString('utf8')]));
    const theirs = Object.fromEntries(
      Object.entries(registry).map(([k, v]) => [k, decode(v).toString('utf8')]),
    );
    d.compare(`ManagedResource secret ${s.metadata.name}`, '', 'registry keys and bytes', ours, theirs);
  }
}
