import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { formatKubeletDataVolumeScript, PATH } from '../../../api/index.js';
import { MemoryDisk } from '../../../hack/node-agent-doubles/memory-disk.js';
import { RecordingDisk } from '../../../hack/node-agent-doubles/recording-disk.js';
import { ScriptDisk } from '../../../node-agent/bootstrap/disk.js';
import { diskLine, mountLine, writeDiskStubs } from '../support/disk-stubs.js';
import { useTempDirs } from '../support/harness.js';

const MKFS_ARGS = [
  '-L',
  'KUBEDEV',
  '-O',
  'quota',
  '-E',
  'lazy_itable_init=0,lazy_journal_init=0,quotatype=usrquota:grpquota:prjquota',
];

// Upstream: gardener v1.91.4 pkg/nodeagent/bootstrap/kubelet_data_volume.go.
describe('node-agent bootstrap: kubelet data volume', () => {
  const tempDir = useTempDirs();
  let root: string;
  let stubs: ReturnType<typeof writeDiskStubs>;

  beforeEach(() => {
    const dir = tempDir('gna-disk-');
    root = join(dir, 'root');
    mkdirSync(root);
    mkdirSync(join(dir, 'stubs'));
    stubs = writeDiskStubs(join(dir, 'stubs'));
  });

  const tmpDir = () => join(root, PATH.nodeAgentTempDir);
  const formatted = (calls: string[][]) => calls.filter(([name]) => name === 'mkfs.ext4');

  it('N-TV-16: the script matches the disk by size and says so', () => {
    const script = formatKubeletDataVolumeScript(1234);
    expect(script).to.contain('PARTTYPE="".*FSTYPE="".*SIZE="1234"');
    expect(script).to.contain('echo "Matching kubelet data device by size : $size"');
    expect(script).to.contain('readonly size=1234');
  });

  it('formats the unused, unformatted disk of exactly the size; skips the others', async () => {
    const env = stubs.env({
      disks: [
        diskLine('sda', 1234, { fstype: 'ext4' }), // formatted
        diskLine('sdb', 12345), // wrong size (a prefix of the size must not match)
        diskLine('sdc', 1234), // has a mounted partition
        diskLine('loop0', 1234, { type: 'loop' }), // not a disk
        diskLine('sdd', 1234, { parttype: 'c12a7328-f81f-11d2-ba4b-00a0c93ec93b' }), // a partition type
        diskLine('sde', 1234), // the one
        diskLine('sdf', 1234), // also fits, but only the first is taken
      ],
      mounts: [mountLine('sda', ''), mountLine('sdc1', '/data'), mountLine('sde', '', 'disk')],
    });
    await new ScriptDisk({ root, env }).formatKubeletDataVolume(1234);
    const calls = stubs.calls();
    expect(formatted(calls)).to.deep.equal([['mkfs.ext4', ...MKFS_ARGS, '/dev/sde']]);
    expect(calls.filter(([name]) => name === 'mount' || name === 'umount')).to.deep.equal([
      ['mount', 'LABEL=KUBEDEV', '/tmp/varlibkubeletcp'],
      ['umount', '/tmp/varlibkubeletcp'],
      ['mount', 'LABEL=KUBEDEV', '/var/lib/kubelet', '-o', 'defaults,prjquota,errors=remount-ro'],
    ]);
    // v1.91.4 moves the kubelet's directory onto the volume (v1.91.0-.2: all of /var/lib).
    expect(calls.find(([name]) => name === 'cp')).to.deep.equal([
      'cp',
      '-a',
      '/var/lib/kubelet/.',
      '/tmp/varlibkubeletcp/',
    ]);
    // The temp dir exists (root-only), the script file is gone.
    expect(statSync(tmpDir()).mode & 0o7777).to.equal(0o700);
    expect(readdirSync(tmpDir())).to.deep.equal([]);
  });

  it('does nothing once a file system labelled KUBEDEV exists', async () => {
    const env = stubs.env({ disks: [diskLine('sde', 1234)], blkidExit: 0 });
    await new ScriptDisk({ root, env }).formatKubeletDataVolume(1234);
    expect(stubs.calls()).to.deep.equal([['blkid', '--label', 'KUBEDEV']]);
  });

  it('fails with the script output when no disk matches, and removes the script', async () => {
    const env = stubs.env({ disks: [diskLine('sda', 999), diskLine('sdb', 1234, { fstype: 'xfs' })] });
    let error: Error | undefined;
    try {
      await new ScriptDisk({ root, env }).formatKubeletDataVolume(1234);
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).to.equal(
      'failed executing formatter bash script: exit status 1 ' +
        '(output: "Matching kubelet data device by size : 1234\\nNo kubelet data device found\\n")',
    );
    expect(formatted(stubs.calls())).to.deep.equal([]);
    expect(readdirSync(tmpDir())).to.deep.equal([]);
  });

  it('reports a failing mkfs with its output', async () => {
    const env = stubs.env({ disks: [diskLine('sde', 1234)], mkfsExit: 3 });
    let error: Error | undefined;
    await new ScriptDisk({ root, env }).formatKubeletDataVolume(1234).catch((e: Error) => {
      error = e;
    });
    expect(error?.message).to.match(
      /^failed executing formatter bash script: exit status 3 \(output: ".*mke2fs stub: -L KUBEDEV/,
    );
    expect(readdirSync(tmpDir())).to.deep.equal([]);
  });

  it('creates the tmp dir when it is missing (the v1.94 fix) and keeps an existing one as it is', async () => {
    mkdirSync(tmpDir(), { recursive: true, mode: 0o755 });
    writeFileSync(join(tmpDir(), 'other'), 'x');
    const env = stubs.env({ disks: [diskLine('sde', 1234)] });
    await new ScriptDisk({ root, env }).formatKubeletDataVolume(1234);
    expect(statSync(tmpDir()).mode & 0o7777).to.equal(0o755);
    expect(readdirSync(tmpDir())).to.deep.equal(['other']);
  });

  it('writes the script 0755 and runs it through /usr/bin/env bash', async () => {
    // A bash stub that records how it was called and what the file looked like.
    const bash = join(stubs.dir, 'bash');
    writeFileSync(
      bash,
      '#!/bin/sh\ncase "$1" in */format-kubelet-data-volume-*) printf \'%s\\n\' "$1" "$(stat -c %a "$1")" > "$STUB_LOG.bash" ;; esac\nexec /bin/bash "$@"\n',
      { mode: 0o755 },
    );
    const env = stubs.env({ disks: [diskLine('sde', 1234)] });
    await new ScriptDisk({ root, env }).formatKubeletDataVolume(1234);
    const [file, mode] = readFileSync(`${stubs.log}.bash`, 'utf8').split('\n');
    expect(file).to.match(new RegExp(`^${tmpDir()}/format-kubelet-data-volume-[0-9a-f]{16}$`));
    expect(mode).to.equal('755');
    expect(existsSync(file!)).to.equal(false);
  });

  it('refuses a tmp dir that leads out of the root through a symlink', async () => {
    const outside = tempDir('gna-outside-');
    mkdirSync(join(root, 'var/lib'), { recursive: true });
    symlinkSync(outside, join(root, PATH.nodeAgentBaseDir));
    const env = stubs.env({ disks: [diskLine('sde', 1234)] });
    let error: Error | undefined;
    await new ScriptDisk({ root, env }).formatKubeletDataVolume(1234).catch((e: Error) => {
      error = e;
    });
    expect(error?.message).to.contain('resolves outside the root');
    expect(readdirSync(outside)).to.deep.equal([]);
    expect(stubs.calls()).to.deep.equal([]);
  });

  it('MemoryDisk and RecordingDisk remember the request', async () => {
    const memory = new MemoryDisk();
    await memory.formatKubeletDataVolume(1234);
    expect(memory.formatted).to.deep.equal([1234]);
    const file = join(root, 'disk.jsonl');
    await new RecordingDisk(file).formatKubeletDataVolume(1234);
    expect(readFileSync(file, 'utf8')).to.equal('{"op":"format-kubelet-data-volume","size":1234}\n');
  });
});
