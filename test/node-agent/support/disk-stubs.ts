/**
 * Stub executables for the kubelet data volume formatter: every command of the script that touches
 * disks or the file system (lsblk, blkid, mkfs.ext4, mount, umount, cp, mkdir) is a stub that
 * appends its name and argv (tab-separated) to $STUB_LOG. lsblk prints $LSBLK_DISKS for the disk
 * listing and $LSBLK_MOUNTS for the mount check; blkid exits $BLKID_EXIT (env() defaults it to 2: no such
 * label); mkfs.ext4 exits $MKFS_EXIT (default 0). PATH is the stub dir, then /usr/bin:/bin for bash, sed, grep.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Everything the formatter script may run that must never run for real in a test. */
export const DISK_STUBS = ['lsblk', 'blkid', 'mkfs.ext4', 'mount', 'umount', 'cp', 'mkdir'] as const;

const LOG = `printf '%s\\t' "\${0##*/}" "$@" >> "$STUB_LOG"; printf '\\n' >> "$STUB_LOG"`;

const BODY: Record<(typeof DISK_STUBS)[number], string> = {
  lsblk: `case " $* " in
  *PARTTYPE*) cat "$LSBLK_DISKS" ;;
  *) cat "$LSBLK_MOUNTS" ;;
esac`,
  blkid: 'exit "$BLKID_EXIT"',
  'mkfs.ext4': 'echo "mke2fs stub: $*"; exit "$MKFS_EXIT"',
  mount: 'exit 0',
  umount: 'exit 0',
  cp: 'exit 0',
  mkdir: 'exit 0',
};

export interface DiskStubs {
  readonly dir: string;
  readonly log: string;
  /** The environment for the formatter: stubs first on PATH. */
  env(options?: {
    disks?: string[];
    mounts?: string[];
    blkidExit?: number;
    mkfsExit?: number;
  }): NodeJS.ProcessEnv;
  /** The logged calls: [name, ...argv]. */
  calls(): string[][];
}

export function writeDiskStubs(dir: string): DiskStubs {
  for (const name of DISK_STUBS) {
    const path = join(dir, name);
    writeFileSync(path, `#!/usr/bin/env bash\n${LOG}\n${BODY[name]}\n`);
    chmodSync(path, 0o755);
  }
  const log = join(dir, 'calls.log');
  return {
    dir,
    log,
    env(options = {}) {
      for (const name of DISK_STUBS)
        if (!existsSync(join(dir, name))) throw new Error(`stub ${name} missing`);
      const disks = join(dir, 'lsblk-disks.txt');
      const mounts = join(dir, 'lsblk-mounts.txt');
      writeFileSync(disks, (options.disks ?? []).map((l) => `${l}\n`).join(''));
      writeFileSync(mounts, (options.mounts ?? []).map((l) => `${l}\n`).join(''));
      return {
        PATH: `${dir}:/usr/bin:/bin`,
        STUB_LOG: log,
        LSBLK_DISKS: disks,
        LSBLK_MOUNTS: mounts,
        BLKID_EXIT: String(options.blkidExit ?? 2),
        MKFS_EXIT: String(options.mkfsExit ?? 0),
        NODE_AGENT_REFUSE_HOST_ROOT: '1',
      };
    },
    calls() {
      if (!existsSync(log)) return [];
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t').slice(0, -1));
    },
  };
}

/** One `lsblk -dbsnP -o NAME,PARTTYPE,FSTYPE,SIZE,PATH,TYPE` line. */
export function diskLine(
  name: string,
  size: number,
  o: { fstype?: string; parttype?: string; type?: string } = {},
) {
  return `NAME="${name}" PARTTYPE="${o.parttype ?? ''}" FSTYPE="${o.fstype ?? ''}" SIZE="${size}" PATH="/dev/${name}" TYPE="${o.type ?? 'disk'}"`;
}

/** One `lsblk -dbsnP -o NAME,MOUNTPOINT,TYPE` line. */
export function mountLine(name: string, mountpoint: string, type = 'part') {
  return `NAME="${name}" MOUNTPOINT="${mountpoint}" TYPE="${type}"`;
}
