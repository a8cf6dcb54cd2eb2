/** fast-check generators of small OSCs that collide often: few paths, few unit and drop-in names. */
import fc from 'fast-check';
import type { OperatingSystemConfig, OscFile, OscUnit } from '../../../api/index.js';

export const PATHS = ['/etc/a', '/etc/b', '/opt/bin/c', '/var/lib/d/e', '/x'];
export const UNIT_NAMES = [
  'a.service',
  'b.service',
  'c.service',
  'gardener-node-init.service',
  'gardener-node-agent.service',
];
export const IMAGES = { 'img:1': { '/bin': 'binary-1', '/conf': 'conf-1' }, 'img:2': { '/bin': 'binary-2' } };

const text = fc.constantFrom('one', 'two', 'three\n', '');

const file: fc.Arbitrary<OscFile> = fc.record(
  {
    path: fc.constantFrom(...PATHS),
    permissions: fc.constantFrom(0o644, 0o755, 0o600, 0o640),
    content: fc.oneof(
      text.map((data) => ({ inline: { encoding: '' as const, data } })),
      text.map((data) => ({
        inline: { encoding: 'b64' as const, data: Buffer.from(data).toString('base64') },
      })),
      fc.constantFrom(
        { imageRef: { image: 'img:1', filePathInImage: '/bin' } },
        { imageRef: { image: 'img:1', filePathInImage: '/conf' } },
        { imageRef: { image: 'img:2', filePathInImage: '/bin' } },
      ),
    ),
  },
  { requiredKeys: ['path', 'content'] },
);

function unit(names: readonly string[]): fc.Arbitrary<OscUnit> {
  return fc.record(
    {
      name: fc.constantFrom(...names),
      enable: fc.boolean(),
      command: fc.constantFrom('start' as const, 'restart' as const, 'stop' as const),
      content: text.map((t) => `[Unit]\n${t}`),
      dropIns: fc.array(fc.record({ name: fc.constantFrom('10-a.conf', '20-b.conf'), content: text }), {
        maxLength: 2,
      }),
      filePaths: fc.subarray(PATHS, { maxLength: 2 }),
    },
    { requiredKeys: ['name'] },
  );
}

export function oscArbitrary(names: readonly string[] = UNIT_NAMES): fc.Arbitrary<OperatingSystemConfig> {
  return fc
    .record({
      files: fc.array(file, { maxLength: 4 }),
      units: fc.array(unit(names), { maxLength: 4 }),
      extensionFiles: fc.array(file, { maxLength: 2 }),
      extensionUnits: fc.array(unit(names), { maxLength: 2 }),
    })
    .map(({ files, units, extensionFiles, extensionUnits }) => ({
      apiVersion: 'extensions.gardener.cloud/v1alpha1' as const,
      kind: 'OperatingSystemConfig' as const,
      metadata: { name: 'osc' },
      spec: { type: 't', purpose: 'reconcile' as const, files, units },
      status: { extensionFiles, extensionUnits },
    }));
}

/**
 * OSCs in which a unit name always or never has content (`owned` names always do): the agent
 * treats units with and without content differently on removal, so only with a fixed ownership is
 * the end state independent of the path taken.
 */
export function fixedOwnershipOscArbitrary(owned: readonly string[], notOwned: readonly string[]) {
  return oscArbitrary([...owned, ...notOwned]).map((osc) => {
    const fix = (u: OscUnit): OscUnit => {
      const { content, ...rest } = u;
      return owned.includes(u.name) ? { ...rest, content: content ?? '[Unit]\n' } : rest;
    };
    return {
      ...osc,
      spec: { ...osc.spec, units: osc.spec.units?.map(fix) },
      status: { ...osc.status, extensionUnits: osc.status?.extensionUnits?.map(fix) },
    };
  });
}
