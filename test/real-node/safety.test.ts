/**
 * The safety rules of a real node, proven by their refusals: no entry point boots, enters, cleans
 * or removes anything that is `/`, lies outside its expected parent, sits under /tmp or lacks its
 * marker, and nothing happens before the refusal (no cgroup, no removal).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Container } from '../../hack/real-node/container.js';
import { RealNode } from '../../hack/real-node/real-node.js';
import {
  guardBase,
  guardNodeDir,
  guardNodeName,
  guardRoot,
  NODE_DIR_MARKER,
  ROOT_MARKER,
  UnsafeRootError,
} from '../../hack/real-node/root-guard.js';
import { NODE_SCRIPT } from '../../hack/real-node/runs.js';

describe('real-node safety rules', () => {
  let base: string;
  let parent: string;
  let root: string;
  let nodeDir: string;
  let tmp: string;

  beforeEach(() => {
    base = mkdtempSync('/var/tmp/real-node-safety-');
    parent = join(base, 'images');
    root = join(parent, 'rootfs');
    nodeDir = join(base, 'nodes', 'real-node-x');
    mkdirSync(root, { recursive: true });
    mkdirSync(nodeDir, { recursive: true });
    writeFileSync(join(root, ROOT_MARKER), '');
    writeFileSync(join(nodeDir, NODE_DIR_MARKER), '');
    tmp = mkdtempSync(join(tmpdir(), 'real-node-safety-'));
  });

  afterEach(() => {
    rmSync(base, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  });

  const refused = (f: () => unknown, reason: RegExp) => expect(f).to.throw(UnsafeRootError, reason);

  describe('in code (hack/real-node/root-guard.ts)', () => {
    it('accepts a marked root inside its parent', () => {
      expect(guardRoot(root, parent)).to.equal(root);
      expect(guardNodeDir(nodeDir, base)).to.equal(nodeDir);
    });

    it('refuses / as root or parent, also behind a symlink (compared by device and inode)', () => {
      refused(() => guardBase('/'), /is \//);
      symlinkSync('/', join(base, 'slash'));
      refused(() => guardBase(join(base, 'slash')), /is \//);
      refused(() => guardRoot('/', parent), /is \//);
      symlinkSync('/', join(parent, 'to-slash'));
      refused(() => guardRoot(join(parent, 'to-slash'), parent), /is \//);
    });

    it('refuses parents under /tmp', () => {
      refused(() => guardBase(tmp), /under \/tmp/);
      refused(() => guardBase('/tmp'), /under \/tmp/);
    });

    it('refuses a root outside its parent, also through a symlink, and the parent itself', () => {
      refused(() => guardRoot(nodeDir, parent), /not inside/);
      symlinkSync(nodeDir, join(parent, 'elsewhere'));
      writeFileSync(join(nodeDir, ROOT_MARKER), '');
      refused(() => guardRoot(join(parent, 'elsewhere'), parent), /not inside/);
      writeFileSync(join(parent, ROOT_MARKER), '');
      refused(() => guardRoot(parent, parent), /not inside/);
    });

    it('refuses a root without the marker, or with a symlink for one', () => {
      rmSync(join(root, ROOT_MARKER));
      refused(() => guardRoot(root, parent), /has no \.container-root-marker/);
      symlinkSync(join(nodeDir, NODE_DIR_MARKER), join(root, ROOT_MARKER));
      refused(() => guardRoot(root, parent), /has no \.container-root-marker/);
    });

    it('refuses to remove a node directory without its marker or outside the base', () => {
      rmSync(join(nodeDir, NODE_DIR_MARKER));
      refused(() => guardNodeDir(nodeDir, base), /has no \.real-node-dir/);
      refused(() => guardNodeDir(tmp, base), /not inside/);
    });

    it('refuses names that are not real-node names', () => {
      for (const name of [
        '',
        'kubelet',
        'real-node-',
        'real-node-A',
        'real-node-x/../y',
        `real-node-${'x'.repeat(50)}`,
      ])
        refused(() => guardNodeName(name), /does not match/);
      expect(guardNodeName('real-node-abc-1')).to.equal('real-node-abc-1');
    });

    it('makes no node directory where the rules forbid one, not even the base', () => {
      const made = (base: string) => () =>
        new RealNode({ name: 'real-node-x', cache: parent, supervisor: '/bin/true', base });
      refused(made(join(tmp, 'base')), /under \/tmp/);
      refused(made('/real-node-safety-base'), /is \//);
      expect(existsSync(join(tmp, 'base'))).to.equal(false);
      expect(existsSync('/real-node-safety-base')).to.equal(false);
    });

    it('refuses to run anything in a process that is not the PID 1 of a marked container', async () => {
      let error: unknown;
      await new Container(process.ppid, process.pid).exec(['true']).catch((e) => (error = e));
      expect(error).to.be.instanceOf(UnsafeRootError);
      expect((error as Error).message).to.match(/shares this machine's mnt namespace/);
      await new Container(process.pid, process.pid).exec(['true']).catch((e) => (error = e));
      expect((error as Error).message).to.match(/is not the container started by nspawn/);
    });
  });

  describe('in node.sh (what boots, cleans and removes)', () => {
    const nodeSh = (...args: string[]) => {
      const r = spawnSync('bash', [NODE_SCRIPT, ...args], { encoding: 'utf8' });
      return { code: r.status, stderr: r.stderr };
    };
    const boot = (o: { name?: string; root?: string; rootParent?: string; base?: string }) =>
      nodeSh(
        'boot',
        ...[
          '--name',
          o.name ?? 'real-node-x',
          '--root',
          o.root ?? root,
          '--root-parent',
          o.rootParent ?? parent,
        ],
        ...['--base', o.base ?? base, '--node-dir', nodeDir, '--nspawn', '/bin/true'],
      );
    const cgroupMade = () =>
      ['/sys/fs/cgroup/unified/real-node-x', '/sys/fs/cgroup/real-node-x'].some((p) => existsSync(p));

    it('refuses / as root or parent', () => {
      expect(boot({ root: '/', rootParent: parent })).to.include({ code: 2 });
      expect(boot({ root: '/', rootParent: parent }).stderr).to.match(/refusing: root \/ is \//);
      expect(boot({ rootParent: '/' }).stderr).to.match(/refusing: \/ is \//);
      expect(boot({ base: '/' }).stderr).to.match(/refusing: \/ is \//);
      expect(cgroupMade()).to.equal(false);
    });

    it('refuses a root outside its parent, without the marker, or a base under /tmp', () => {
      expect(boot({ root: nodeDir }).stderr).to.match(/is not inside/);
      rmSync(join(root, ROOT_MARKER));
      expect(boot({}).stderr).to.match(/has no \.container-root-marker/);
      expect(boot({ base: tmp }).stderr).to.match(/under \/tmp/);
      expect(boot({ name: 'kubelet' }).stderr).to.match(/does not match/);
      expect(cgroupMade()).to.equal(false);
    });

    it('clean refuses to remove a node directory without its marker, and removes nothing', () => {
      rmSync(join(nodeDir, NODE_DIR_MARKER));
      writeFileSync(join(nodeDir, 'keep'), 'x');
      const r = nodeSh('clean', '--name', 'real-node-x', '--base', base, '--node-dir', nodeDir);
      expect(r).to.include({ code: 2 });
      expect(r.stderr).to.match(/has no \.real-node-dir/);
      expect(existsSync(join(nodeDir, 'keep'))).to.equal(true);
      const outside = nodeSh(
        'clean',
        '--name',
        'real-node-x',
        '--base',
        join(base, 'images'),
        '--node-dir',
        nodeDir,
      );
      expect(outside.stderr).to.match(/is not inside/);
      expect(existsSync(join(nodeDir, 'keep'))).to.equal(true);
    });

    it('clean removes a marked node directory and nothing around it', () => {
      writeFileSync(join(base, 'nodes', 'neighbour'), 'x');
      expect(nodeSh('clean', '--name', 'real-node-x', '--base', base, '--node-dir', nodeDir)).to.include({
        code: 0,
      });
      expect(existsSync(nodeDir)).to.equal(false);
      expect(existsSync(join(base, 'nodes', 'neighbour'))).to.equal(true);
    });
  });
});
