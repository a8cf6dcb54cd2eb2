import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { type OperatingSystemConfig, PATH, ValidationError } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import {
  IMAGE_FILES,
  oscV1,
  oscV1WithNodeAgent,
  oscV2,
  yamlOf,
} from '../../../hack/landscape/ntv18-fixtures.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { ApplyError } from '../../../node-agent/applier/apply-osc.js';
import { HostRoot } from '../../../node-agent/applier/host-root.js';
import { decodeLastApplied } from '../../../node-agent/applier/last-applied.js';
import { PROGRESS_FILE, readProgress } from '../../../node-agent/applier/progress-file.js';
import { applyTo, opText } from '../support/apply-fixture.js';
import { fileAt, snapshotTree, useTempDirs } from '../support/harness.js';

const UNIT_DIR = PATH.systemdUnitDir;

describe('node-agent applier: applyOsc', () => {
  const tempDir = useTempDirs();
  let root: string;
  let images: string;

  beforeEach(() => {
    root = tempDir('gna-root-');
    images = writeImages(tempDir('gna-images-'), IMAGE_FILES);
  });

  describe('N-TV-19 first apply', () => {
    it('writes every file with its exact mode, whatever the umask', async () => {
      const old = process.umask(0o077);
      try {
        await applyTo(root, oscV1(), images);
      } finally {
        process.umask(old);
      }
      expect(fileAt(root, '/example/file')).to.deep.equal({ mode: '0777', content: 'file1' });
      expect(fileAt(root, '/another/file')).to.deep.equal({ mode: '0600', content: 'file2' });
      expect(fileAt(root, '/third/file')).to.deep.equal({ mode: '0750', content: 'file3' });
      for (const [path, content] of [
        ['/unchanged/file', 'file4'],
        ['/changed/file', 'file5'],
        ['/sixth/file', 'file6'],
        ['/seventh/file', 'file7'],
      ] as const) {
        expect(fileAt(root, path)).to.deep.equal({ mode: '0750', content });
      }
      expect(snapshotTree(root)['example']).to.deep.equal({ type: 'dir', mode: '0755' });
    });

    it('writes unit files (0600) only for units with content, and every drop-in (0600)', async () => {
      await applyTo(root, oscV1(), images);
      for (const unit of ['unit1', 'unit2', 'unit4', 'unit5', 'unit6', 'unit7', 'unit8']) {
        expect(fileAt(root, `${UNIT_DIR}/${unit}`)).to.deep.equal({ mode: '0600', content: `#${unit}` });
      }
      expect(existsSync(join(root, UNIT_DIR, 'unit3'))).to.equal(false);
      expect(existsSync(join(root, UNIT_DIR, 'unit9'))).to.equal(false);
      for (const [path, content] of [
        ['unit1.d/drop', '#unit1drop'],
        ['unit3.d/drop', '#unit3drop'],
        ['unit4.d/drop', '#unit4drop'],
        ['unit5.d/drop1', '#unit5drop1'],
        ['unit5.d/drop2', '#unit5drop2'],
        ['unit5.d/extensionsdrop', '#unit5extensionsdrop'],
        ['unit9.d/drop', '#unit9drop'],
      ] as const) {
        expect(fileAt(root, `${UNIT_DIR}/${path}`)).to.deep.equal({ mode: '0600', content });
      }
    });

    it('calls systemd as N-TV-19 lists, enable before reload before commands', async () => {
      const { ops, result } = await applyTo(root, oscV1(), images);
      expect(ops).to.deep.equal([
        'enable unit1',
        'enable unit5',
        'enable unit6',
        'enable unit7',
        'enable unit3',
        'enable unit4',
        'enable unit8',
        'enable unit9',
        'disable unit2',
        'daemon-reload',
        'restart unit1',
        'stop unit2',
        'restart unit5',
        'restart unit6',
        'restart unit7',
        'restart unit3',
        'restart unit4',
        'restart unit8',
        'restart unit9',
      ]);
      expect(result.outcome).to.equal('applied');
      expect(result.nodeAgentRestartRequired).to.equal(false);
    });

    it('records the exact osc.yaml bytes as last applied (0600) and removes the progress file', async () => {
      await applyTo(root, oscV1(), images);
      expect(fileAt(root, PATH.lastAppliedOsc)).to.deep.equal({ mode: '0600', content: yamlOf(oscV1()) });
      expect(existsSync(join(root, PROGRESS_FILE))).to.equal(false);
    });

    it('re-applying the same OSC does nothing', async () => {
      await applyTo(root, oscV1(), images);
      const before = snapshotTree(root);
      const again = await applyTo(root, oscV1(), images);
      expect(again.result.outcome).to.equal('up-to-date');
      expect(again.ops).to.deep.equal([]);
      expect(snapshotTree(root)).to.deep.equal(before);
    });
  });

  describe('N-TV-20 update', () => {
    it('leaves the tree and calls systemd as N-TV-20 lists', async () => {
      await applyTo(root, oscV1(), images);
      chmodSync(join(root, UNIT_DIR, 'unit2'), 0o777);
      const { ops } = await applyTo(root, oscV2(), images);

      expect(existsSync(join(root, '/another/file'))).to.equal(false);
      expect(fileAt(root, '/example/file')).to.deep.equal({ mode: '0777', content: 'file1' });
      expect(fileAt(root, '/third/file')).to.deep.equal({ mode: '0750', content: 'file3' });
      expect(fileAt(root, '/changed/file').content).to.equal('changeme');
      expect(fileAt(root, '/sixth/file')).to.deep.equal({ mode: '0750', content: 'changed' });
      expect(fileAt(root, '/seventh/file')).to.deep.equal({ mode: '0750', content: 'changed-as-well' });

      const units = snapshotTree(join(root, UNIT_DIR));
      expect(Object.keys(units).filter((p) => units[p]!.type === 'file')).to.deep.equal([
        'unit2',
        'unit2.d/dropdropdrop',
        'unit3.d/drop',
        'unit4',
        'unit5',
        'unit5.d/drop2',
        'unit6',
        'unit7',
        'unit8',
        'unit9.d/drop',
      ]);
      expect(units.unit2).to.deep.equal({ type: 'file', mode: '0600', content: '#unit2' });
      expect(units['unit4.d']).to.equal(undefined);

      expect([...ops].sort()).to.deep.equal(
        [
          'enable unit2',
          'enable unit5',
          'enable unit6',
          'enable unit7',
          'enable unit8',
          'enable unit9',
          'disable unit4',
          'disable unit1',
          'stop unit1',
          'daemon-reload',
          'restart unit2',
          'restart unit5',
          'restart unit6',
          'restart unit7',
          'restart unit8',
          'restart unit9',
          'stop unit4',
        ].sort(),
      );
      expect(ops.indexOf('stop unit1')).to.be.lessThan(ops.indexOf('daemon-reload'));
      expect(ops.indexOf('daemon-reload')).to.be.lessThan(ops.indexOf('restart unit2'));
    });
  });

  describe('N-TV-21 self-restart', () => {
    it('writes and enables the agent unit, reloads, never restarts it through systemd', async () => {
      await applyTo(root, oscV1(), images);
      const { ops, result } = await applyTo(root, oscV1WithNodeAgent(), images);
      expect(fileAt(root, `${UNIT_DIR}/gardener-node-agent.service`)).to.deep.equal({
        mode: '0600',
        content: '#gna',
      });
      expect(ops).to.deep.equal(['enable gardener-node-agent.service', 'daemon-reload']);
      expect(result.nodeAgentRestartRequired).to.equal(true);
      expect(fileAt(root, PATH.lastAppliedOsc).content).to.equal(yamlOf(oscV1WithNodeAgent()));
    });

    it('as the agent: exits before third-party commands and the next process resumes them (v1.147)', async () => {
      await applyTo(root, oscV1(), images);
      const next = oscV1WithNodeAgent();
      next.spec.units!.push({
        name: 'failing-third-party.service',
        enable: true,
        command: 'restart',
        content: '#failing',
      });
      const failing = () =>
        new MemorySystemd((op) =>
          opText(op) === 'restart failing-third-party.service' ? new Error('boom') : undefined,
        );

      const first = await applyTo(root, next, images, { onNodeAgentRestart: 'exit', systemd: failing() });
      expect(first.result.outcome).to.equal('exit-for-node-agent-restart');
      expect(first.ops).to.deep.equal([
        'enable gardener-node-agent.service',
        'enable failing-third-party.service',
        'daemon-reload',
      ]);
      expect((await readProgress(new HostRoot(root)))!.completed).to.include('restart-node-agent');

      const systemd = failing();
      const error = await applyTo(root, next, images, { onNodeAgentRestart: 'exit', systemd }).catch(
        (e) => e,
      );
      expect(error).to.be.instanceOf(ApplyError);
      expect((error as Error).message).to.contain('restart failing-third-party.service: boom');
      expect(systemd.ops.map(opText)).to.deep.equal(['restart failing-third-party.service']);
      expect(fileAt(root, PATH.lastAppliedOsc).content).to.equal(yamlOf(oscV1()));
    });
  });

  it('a failed unit command does not stop the others; the retry repeats only that command', async () => {
    await applyTo(root, oscV1(), images);
    const next = oscV1();
    next.spec.units = next.spec.units!.map((u) =>
      u.name === 'unit1'
        ? { ...u, command: 'stop' }
        : u.name === 'unit2'
          ? { ...u, enable: true, command: 'start' }
          : u,
    );
    const systemd = new MemorySystemd((op) =>
      opText(op) === 'restart unit2' ? new Error('unit2 is broken') : undefined,
    );
    const error = await applyTo(root, next, images, { systemd }).catch((e) => e);
    expect(error).to.be.instanceOf(ApplyError);
    expect(systemd.ops.map(opText)).to.deep.equal([
      'enable unit1',
      'enable unit2',
      'daemon-reload',
      'stop unit1',
      'restart unit2',
    ]);
    const retry = await applyTo(root, next, images);
    expect(retry.result.resumed).to.equal(true);
    expect(retry.ops).to.deep.equal(['restart unit2']);
    expect(fileAt(root, PATH.lastAppliedOsc).content).to.equal(yamlOf(next));
  });

  it('a cancelled apply stops at the next step, its progress kept for the one that resumes it', async () => {
    const abort = new AbortController();
    const systemd = new MemorySystemd();
    const error = await applyTo(root, oscV1(), images, {
      systemd,
      signal: abort.signal,
      crashPoint: (where) => {
        if (where.startsWith('checked-off write-file')) abort.abort(new Error('cancelled'));
      },
    }).catch((e) => e);
    expect((error as Error).message).to.equal('cancelled');
    expect(systemd.ops).to.deep.equal([]);
    const progress = await readProgress(new HostRoot(root));
    expect(progress?.completed).to.have.length(1);
    const resumed = await applyTo(root, oscV1(), images);
    expect(resumed.result.resumed).to.equal(true);
    expect(resumed.result.outcome).to.equal('applied');
  });

  it('ignores an unreadable progress file and an unreadable last-applied file (applies everything)', async () => {
    await applyTo(root, oscV1(), images);
    writeFileSync(join(root, PROGRESS_FILE), 'version: 7\n');
    writeFileSync(join(root, PATH.lastAppliedOsc), 'kind: nonsense\n');
    const { result, ops } = await applyTo(root, oscV2(), images);
    expect(result.outcome).to.equal('applied');
    expect(result.plan.files.delete).to.deep.equal([]);
    expect(ops).to.include('restart unit3');
    expect(existsSync(join(root, PROGRESS_FILE))).to.equal(false);
    expect(fileAt(root, PATH.lastAppliedOsc).content).to.equal(yamlOf(oscV2()));
  });

  describe('decoding each OSC once', () => {
    it('diffs against the OSC it applied last without decoding it again; a file changed on disk is decoded afresh', async () => {
      const v1 = oscV1();
      await applyTo(root, yamlOf(v1), images, { osc: v1 });
      const text = readFileSync(join(root, PATH.lastAppliedOsc), 'utf8');
      const again = decodeLastApplied(text);
      expect('osc' in again && again.osc, 'the very object the apply used').to.equal(v1);
      const edited = decodeLastApplied(`${text}\n`);
      expect('osc' in edited && edited.osc).to.deep.equal(v1);
      expect('osc' in edited && edited.osc).to.not.equal(v1);
    });

    it('an OSC decoded by the caller is still checked for what its schema cannot see', async () => {
      const bad = oscV1();
      bad.status!.extensionFiles![0]!.content.inline!.data = 'not base64!';
      const error = await applyTo(root, yamlOf(bad), images, { osc: bad }).catch((e) => e);
      expect(error).to.be.instanceOf(ValidationError);
      expect((error as Error).message).to.contain('status.extensionFiles[0].content.inline.data');
      expect(snapshotTree(root)).to.deep.equal({});
    });
  });

  describe('bad input is rejected as a whole before anything is written', () => {
    const cases: [string, (osc: OperatingSystemConfig) => void, string][] = [
      ['a relative path', (o) => (o.spec.files![1]!.path = 'relative/file'), 'spec.files[1].path'],
      [
        'a path with ..',
        (o) => (o.status!.extensionFiles![0]!.path = '/etc/../x'),
        'status.extensionFiles[0].path',
      ],
      [
        'an unknown encoding',
        (o) => ((o.spec.files![0]!.content.inline as { encoding: string }).encoding = 'gzip'),
        'spec.files[0].content.inline.encoding',
      ],
      [
        'broken base64',
        (o) => (o.status!.extensionFiles![0]!.content.inline!.data = 'not base64!'),
        'status.extensionFiles[0].content.inline.data',
      ],
      ['a unit name with /', (o) => (o.spec.units![0]!.name = '../evil'), 'spec.units[0].name'],
      [
        'an image path with ..',
        (o) => (o.spec.files![1]!.content.imageRef!.filePathInImage = '/../etc/shadow'),
        'spec.files[1].content.imageRef.filePathInImage',
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
        expect((error as Error).message).to.contain(field);
        expect(snapshotTree(root)).to.deep.equal({});
        expect(systemd.ops).to.deep.equal([]);
      });
    }
  });

  describe('files', () => {
    const one = (path: string, data: string, permissions?: number): OperatingSystemConfig => {
      const osc = oscV1();
      osc.spec = {
        type: 't',
        purpose: 'reconcile',
        files: [{ path, permissions, content: { inline: { encoding: '', data } } }],
      };
      osc.status = {};
      return osc;
    };

    it('replaces a file by rename: a reader holding the old file keeps the old bytes, no temp file remains', async () => {
      mkdirSync(join(root, 'etc'));
      writeFileSync(join(root, 'etc/f'), 'old');
      linkSync(join(root, 'etc/f'), join(root, 'old-inode'));
      await applyTo(root, one('/etc/f', 'new', 0o640), images);
      expect(readFileSync(join(root, 'old-inode'), 'utf8')).to.equal('old');
      expect(fileAt(root, '/etc/f')).to.deep.equal({ mode: '0640', content: 'new' });
      expect(Object.keys(snapshotTree(join(root, 'etc')))).to.deep.equal(['f']);
    });

    it('replaces a stale temp file left by a crash', async () => {
      mkdirSync(join(root, 'etc'));
      writeFileSync(join(root, 'etc/.f.gna-tmp'), 'half-written');
      await applyTo(root, one('/etc/f', 'new'), images);
      expect(Object.keys(snapshotTree(join(root, 'etc')))).to.deep.equal(['f']);
    });

    it('replaces a symlink at the destination instead of writing through it', async () => {
      const outside = join(tempDir(), 'outside');
      writeFileSync(outside, 'precious');
      mkdirSync(join(root, 'etc'));
      symlinkSync(outside, join(root, 'etc/f'));
      await applyTo(root, one('/etc/f', 'new'), images);
      expect(readFileSync(outside, 'utf8')).to.equal('precious');
      expect(fileAt(root, '/etc/f').content).to.equal('new');
    });

    it('refuses to follow a symlinked directory out of the root', async () => {
      const outside = tempDir();
      symlinkSync(outside, join(root, 'etc'));
      const error = await applyTo(root, one('/etc/sub/f', 'x'), images).catch((e) => e);
      expect((error as Error).message).to.contain('outside the root');
      expect(snapshotTree(outside)).to.deep.equal({});
    });

    it('takes a ko-built node agent binary from /ko-app/gardener-node-agent (v1.119)', async () => {
      writeImages(images, { 'gna:v1': { '/ko-app/gardener-node-agent': 'binary' } });
      const osc = one('/opt/bin/gardener-node-agent', '');
      osc.spec.files = [
        {
          path: '/opt/bin/gardener-node-agent',
          permissions: 0o755,
          content: { imageRef: { image: 'gna:v1', filePathInImage: '/gardener-node-agent' } },
        },
      ];
      await applyTo(root, osc, images);
      expect(fileAt(root, '/opt/bin/gardener-node-agent')).to.deep.equal({ mode: '0755', content: 'binary' });
    });
  });

  describe('units', () => {
    const withUnits = (units: OperatingSystemConfig['spec']['units']): OperatingSystemConfig => ({
      ...oscV1(),
      spec: { type: 't', purpose: 'reconcile', units },
      status: {},
    });

    it('a removed OS unit loses only its drop-ins and is restarted when systemd has it (v1.111)', async () => {
      const osUnits = [
        { name: 'shipped.service', dropIns: [{ name: '10-a.conf', content: 'a' }] },
        { name: 'absent.service', dropIns: [{ name: '10-a.conf', content: 'a' }] },
      ];
      mkdirSync(join(root, 'usr/lib/systemd/system'), { recursive: true });
      writeFileSync(join(root, 'usr/lib/systemd/system/shipped.service'), '[Unit]');
      await applyTo(root, withUnits(osUnits), images);
      writeFileSync(join(root, UNIT_DIR, 'shipped.service.d/99-admin.conf'), 'mine');
      const { ops } = await applyTo(root, withUnits([]), images);
      expect(ops).to.deep.equal(['daemon-reload', 'restart shipped.service']);
      const units = snapshotTree(join(root, UNIT_DIR));
      expect(Object.keys(units)).to.deep.equal(['shipped.service.d', 'shipped.service.d/99-admin.conf']);
    });

    it('replaces a masked (symlinked) unit instead of chmod-ing its target', async () => {
      const target = join(tempDir(), 'null');
      writeFileSync(target, '#x');
      chmodSync(target, 0o644);
      mkdirSync(join(root, UNIT_DIR), { recursive: true });
      symlinkSync(target, join(root, UNIT_DIR, 'x.service'));
      await applyTo(root, withUnits([{ name: 'x.service', content: '#x' }]), images);
      expect(fileAt(root, `${UNIT_DIR}/x.service`)).to.deep.equal({ mode: '0600', content: '#x' });
      expect(fileAt(target.slice(0), '').mode).to.equal('0644');
    });
  });
});
