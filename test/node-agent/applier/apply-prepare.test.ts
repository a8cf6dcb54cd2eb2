/**
 * Prepare, then commit: everything an apply can know before its first write is checked before it,
 * and every such failure leaves the node exactly as it was, naming the OSC field (exit 2), or, for
 * an image that cannot be had, failing before the first write (exit 1).
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { type OperatingSystemConfig, ValidationError } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1 } from '../../../hack/landscape/ntv18-fixtures.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { CtrImageExtractor } from '../../../node-agent/registry/ctr-extractor.js';
import { applyTo } from '../support/apply-fixture.js';
import { snapshotTree, useTempDirs } from '../support/harness.js';

describe('node-agent applier: nothing written before everything knowable is checked', () => {
  const tempDir = useTempDirs();
  let root: string;
  let images: string;

  beforeEach(() => {
    root = tempDir('gna-root-');
    images = writeImages(tempDir('gna-images-'), IMAGE_FILES);
  });

  const one = (path: string, data: string): OperatingSystemConfig => {
    const osc = oscV1();
    osc.spec = {
      type: 't',
      purpose: 'reconcile',
      files: [{ path, content: { inline: { encoding: '', data } } }],
    };
    osc.status = {};
    return osc;
  };

  describe('paths of one OSC that cannot all be written', () => {
    const inline = (path: string) => ({ path, content: { inline: { encoding: '' as const, data: 'x' } } });
    const cases: [string, (osc: OperatingSystemConfig) => void, string][] = [
      [
        'a file and a path below it',
        (o) => o.spec.files!.push(inline('/etc/a'), inline('/etc/a/b')),
        'spec.files[3].path',
      ],
      [
        'a unit a.service.d beside the drop-ins of a.service',
        (o) =>
          o.spec.units!.push(
            { name: 'a.service', dropIns: [{ name: '10-x.conf', content: '[Service]\n' }] },
            { name: 'a.service.d', content: '[Unit]\n' },
          ),
        'spec.units[6].name',
      ],
      [
        'a file that is also a unit file',
        (o) => o.spec.files!.push(inline('/etc/systemd/system/unit1')),
        'spec.files[3].path',
      ],
      [
        "the agent's progress file",
        (o) => o.spec.files!.push(inline('/var/lib/gardener-node-agent/apply-progress.yaml')),
        'spec.files[3].path',
      ],
      [
        "a file in the agent's scratch directory",
        (o) => o.spec.files!.push(inline('/var/lib/gardener-node-agent/tmp/x')),
        'spec.files[3].path',
      ],
      [
        'a file where the agent keeps its state',
        (o) => o.spec.files!.push(inline('/var/lib/gardener-node-agent')),
        'spec.files[3].path',
      ],
      [
        "the agent's identity kubeconfig",
        (o) => o.spec.files!.push(inline('/var/lib/gardener-node-agent/credentials/kubeconfig')),
        'spec.files[3].path',
      ],
      [
        "the agent's machine-name",
        (o) => o.status!.extensionFiles!.push(inline('/var/lib/gardener-node-agent/machine-name')),
        'status.extensionFiles[4].path',
      ],
      [
        "the agent's token",
        (o) => o.spec.files!.push(inline('/var/lib/gardener-node-agent/credentials/token')),
        'spec.files[3].path',
      ],
      ['a file path with a newline', (o) => o.spec.files!.push(inline('/etc/a\nb')), 'spec.files[3].path'],
      [
        'a file path with an escape sequence',
        (o) => o.status!.extensionFiles!.push(inline('/etc/\u001b[2Jx')),
        'status.extensionFiles[4].path',
      ],
      [
        'a unit name with a newline',
        (o) => o.spec.units!.push({ name: 'a.service\nb.service', content: '[Unit]\n' }),
        'spec.units[6].name',
      ],
      [
        'a drop-in name with a carriage return',
        (o) =>
          o.status!.extensionUnits!.push({
            name: 'a.service',
            dropIns: [
              { name: 'ok.conf', content: '[Service]\n' },
              { name: '10-x\r.conf', content: '[Service]\n' },
            ],
          }),
        'status.extensionUnits[4].dropIns[1].name',
      ],
      [
        'a unit name with a C1 control character',
        (o) => o.spec.units!.push({ name: 'a\u009b.service', content: '[Unit]\n' }),
        'spec.units[6].name',
      ],
      [
        'a name longer than 255 bytes',
        (o) => o.spec.files!.push(inline(`/etc/${'ü'.repeat(128)}`)),
        'spec.files[3].path',
      ],
    ];
    for (const [what, mutate, field] of cases) {
      it(what, async () => {
        const osc = oscV1();
        mutate(osc);
        const systemd = new MemorySystemd();
        const error = await applyTo(root, osc, images, { systemd }).catch((e) => e);
        expect(error).to.be.instanceOf(ValidationError);
        expect((error as ValidationError).errors.map((e) => e.field)).to.include(field);
        expect(snapshotTree(root)).to.deep.equal({});
        expect(systemd.ops).to.deep.equal([]);
      });
    }
  });

  describe("what the node's tree does not allow", () => {
    it('finds a parent symlink leading outside the root before writing anything', async () => {
      const outside = tempDir();
      symlinkSync(outside, join(root, 'etc'));
      const osc = one('/aaa', 'first');
      osc.spec.files!.push({ path: '/etc/sub/f', content: { inline: { encoding: '', data: 'x' } } });
      const before = snapshotTree(root);
      const error = await applyTo(root, osc, images).catch((e) => e);
      expect(error).to.be.instanceOf(ValidationError);
      expect((error as Error).message).to.contain('spec.files[1].path');
      expect((error as Error).message).to.contain('/etc/sub/f resolves outside the root');
      expect(snapshotTree(root)).to.deep.equal(before);
      expect(snapshotTree(outside)).to.deep.equal({});
    });

    for (const [how, target] of [
      ['an absolute symlink', (r: string) => join(r, 'var/lib/gardener-node-agent')],
      ['a relative symlink', () => '../var/lib/gardener-node-agent'],
      ['a symlink to its parent', () => '../var/lib'],
    ] as const) {
      it(`refuses a write into the agent's state directory through ${how} inside the root`, async () => {
        mkdirSync(join(root, 'var/lib/gardener-node-agent/credentials'), { recursive: true });
        writeFileSync(join(root, 'var/lib/gardener-node-agent/credentials/kubeconfig'), 'identity');
        mkdirSync(join(root, 'etc'));
        symlinkSync(target(root), join(root, 'etc/agent'));
        const path = how === 'a symlink to its parent' ? '/etc/agent/gardener-node-agent' : '/etc/agent';
        const osc = one('/aaa', 'first');
        osc.spec.files!.push({
          path: `${path}/credentials/kubeconfig`,
          content: { inline: { encoding: '', data: 'attacker' } },
        });
        const before = snapshotTree(root);
        const systemd = new MemorySystemd();
        const error = await applyTo(root, osc, images, { systemd }).catch((e) => e);
        expect(error).to.be.instanceOf(ValidationError);
        expect((error as Error).message).to.contain(
          `spec.files[1].path: Forbidden: ${path}/credentials/kubeconfig leads into the node agent's state directory /var/lib/gardener-node-agent through a symlink`,
        );
        expect(snapshotTree(root)).to.deep.equal(before);
        expect(systemd.ops).to.deep.equal([]);
      });
    }

    it("still writes the agent's config.yaml, which the OSC names by its own path", async () => {
      await applyTo(root, one('/var/lib/gardener-node-agent/config.yaml', 'config'), images);
      expect(snapshotTree(root)['var/lib/gardener-node-agent/config.yaml']).to.include({ content: 'config' });
    });

    it('rejects a write that a removal of the same apply would undo (found by fuzzing)', async () => {
      const previous = one('/aaa', 'first');
      previous.spec.units = [{ name: 'a.service', content: '[Unit]\n' }];
      await applyTo(root, previous, images);
      const next = one('/aaa', 'first');
      next.spec.units = [{ name: 'a.service.d', content: '[Unit]\n' }];
      const before = snapshotTree(root);
      const error = await applyTo(root, next, images).catch((e) => e);
      expect((error as Error).message).to.contain(
        'spec.units[0].name: Invalid value: /etc/systemd/system/a.service.d would be removed again by this apply (the drop-in directory a.service.d goes)',
      );
      expect(snapshotTree(root)).to.deep.equal(before);
    });

    it('finds a dangling symlink where a directory must be before writing anything', async () => {
      symlinkSync(join(root, 'nowhere'), join(root, 'etc'));
      const osc = one('/etc/sub/f', 'x');
      const before = snapshotTree(root);
      const error = await applyTo(root, osc, images).catch((e) => e);
      expect(error).to.be.instanceOf(ValidationError);
      expect((error as Error).message).to.contain(
        'spec.files[0].path: Forbidden: /etc is a symlink that leads nowhere',
      );
      expect(snapshotTree(root)).to.deep.equal(before);
    });

    it('finds a file where a directory must be before writing anything', async () => {
      writeFileSync(join(root, 'etc'), 'a file');
      const osc = one('/aaa', 'first');
      osc.spec.files!.push({ path: '/etc/sub/f', content: { inline: { encoding: '', data: 'x' } } });
      const before = snapshotTree(root);
      const error = await applyTo(root, osc, images).catch((e) => e);
      expect((error as Error).message).to.contain(
        'spec.files[1].path: Invalid value: /etc is a file on this node, not a directory',
      );
      expect(snapshotTree(root)).to.deep.equal(before);
    });

    it('rejects naming the field, before writing anything, when the destination is a directory', async () => {
      mkdirSync(join(root, 'etc/f'), { recursive: true });
      const before = snapshotTree(root);
      const error = await applyTo(root, one('/etc/f', 'x'), images).catch((e) => e);
      expect(error).to.be.instanceOf(ValidationError);
      expect((error as Error).message).to.contain(
        'spec.files[0].path: Invalid value: /etc/f exists on this node and is not a regular file',
      );
      expect(snapshotTree(root)).to.deep.equal(before);
    });

    it('without ctr on the node, fails before writing anything', async () => {
      const before = snapshotTree(root);
      const error = await applyTo(root, oscV1(), images, {
        images: new CtrImageExtractor({ root, ctr: join(root, 'no-such-ctr'), attempts: 1 }),
      }).catch((e) => e);
      expect((error as NodeJS.ErrnoException).code).to.equal('ENOENT');
      expect(snapshotTree(root)).to.deep.equal(before);
    });
  });
});
