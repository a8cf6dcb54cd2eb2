/**
 * fast-check generators of OSCs meant to break an apply halfway: paths that collide with each
 * other, with unit files, with the agent's own state or with what is on the node (a symlink out of
 * the root, a file where a directory must be), names over the kernel's limit, broken base64 and
 * images that cannot be had, mixed with ordinary files and units.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { OperatingSystemConfig, OscFile, OscUnit } from '../../../api/index.js';
import { PATHS, UNIT_NAMES } from './osc-arbitrary.js';

/** What the node has before the apply, besides the previous OSC: see `prepareNode`. */
export const NODE_PATHS = { linkOut: '/link', fileOnNode: '/file-on-node', dirOnNode: '/dir-on-node' };

export function prepareNode(root: string, outside: string): void {
  symlinkSync(outside, join(root, NODE_PATHS.linkOut));
  writeFileSync(join(root, NODE_PATHS.fileOnNode), "the node's own file");
  mkdirSync(join(root, NODE_PATHS.dirOnNode, 'sub'), { recursive: true });
}

const HOSTILE_PATHS = [
  '/etc/a/b', // below /etc/a
  '/etc/systemd/system/a.service', // a unit file
  '/etc/systemd/system/b.service.d', // a drop-in directory
  '/var/lib/gardener-node-agent/apply-progress.yaml',
  '/var/lib/gardener-node-agent/last-applied-osc.yaml',
  '/var/lib/gardener-node-agent/tmp/x',
  '/var/lib/gardener-node-agent',
  `/etc/${'n'.repeat(256)}`,
  `${NODE_PATHS.linkOut}/escaped`,
  `${NODE_PATHS.fileOnNode}/below`,
  NODE_PATHS.dirOnNode,
];

const text = fc.constantFrom('one', 'two\n', '');

const file: fc.Arbitrary<OscFile> = fc.record(
  {
    path: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...PATHS) }, fc.constantFrom(...HOSTILE_PATHS)),
    permissions: fc.constantFrom(0o644, 0o755, 0o600),
    content: fc.oneof(
      { weight: 3, arbitrary: text.map((data) => ({ inline: { encoding: '' as const, data } })) },
      text.map((data) => ({
        inline: { encoding: 'b64' as const, data: Buffer.from(data).toString('base64') },
      })),
      fc.constant({ inline: { encoding: 'b64' as const, data: 'not base64!' } }),
      fc.constantFrom(
        { imageRef: { image: 'img:1', filePathInImage: '/bin' } },
        { imageRef: { image: 'img:2', filePathInImage: '/bin' } },
        { imageRef: { image: 'img:missing', filePathInImage: '/bin' } },
      ),
    ),
  },
  { requiredKeys: ['path', 'content'] },
);

const unit: fc.Arbitrary<OscUnit> = fc.record(
  {
    name: fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom(...UNIT_NAMES.filter((n) => n !== 'gardener-node-agent.service')),
      },
      fc.constantFrom('a.service.d', `${'u'.repeat(300)}.service`),
    ),
    enable: fc.boolean(),
    command: fc.constantFrom('restart' as const, 'stop' as const),
    content: text.map((t) => `[Unit]\n${t}`),
    dropIns: fc.array(fc.record({ name: fc.constantFrom('10-a.conf', '20-b.conf'), content: text }), {
      maxLength: 2,
    }),
  },
  { requiredKeys: ['name'] },
);

export function hostileOscArbitrary(): fc.Arbitrary<OperatingSystemConfig> {
  return fc
    .record({
      files: fc.array(file, { maxLength: 4 }),
      units: fc.array(unit, { maxLength: 3 }),
      extensionFiles: fc.array(file, { maxLength: 2 }),
    })
    .map(({ files, units, extensionFiles }) => ({
      apiVersion: 'extensions.gardener.cloud/v1alpha1' as const,
      kind: 'OperatingSystemConfig' as const,
      metadata: { name: 'osc' },
      spec: { type: 't', purpose: 'reconcile' as const, files, units },
      status: { extensionFiles },
    }));
}
