/**
 * What `--real-nodes` asks of its options and of this machine. Each real node is an nspawn
 * container with its own systemd (hack/real-node, docs/real-node.md): a few are enough to show the
 * migration and a rollout in waves, and a few keep the machine responsive.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { realNodeCache } from '../real-node/cache.js';
import { runsDir } from '../real-node/runs.js';

export const MAX_NODES = 50;
export const DEFAULT_NODES = 10;
export const MAX_REAL_NODES = 3;
export const DEFAULT_REAL_NODES = 2;

/** A bad combination of the demo's options: main.ts prints it and exits 2. */
export class UsageError extends Error {}

/** How many nodes the demo runs: `--nodes` or the mode's default, within the mode's limit. */
export function demoNodeCount(o: { nodes?: number; realNodes?: boolean; breakRollout?: boolean }): number {
  if (!o.realNodes) return o.nodes ?? DEFAULT_NODES;
  if (o.breakRollout)
    throw new UsageError(
      '--break-rollout cannot go with --real-nodes: its bad kubelet change fails through a fault of the recorded systemd, and the kubelet stand-in of a real node does not read its configuration',
    );
  const nodes = o.nodes ?? DEFAULT_REAL_NODES;
  if (nodes > MAX_REAL_NODES)
    throw new UsageError(
      `--real-nodes boots each node as an nspawn container with its own systemd: at most ${MAX_REAL_NODES} nodes (--nodes ${nodes} asked; without --real-nodes up to ${MAX_NODES} simulated ones)`,
    );
  return nodes;
}

/**
 * Checks what real nodes need and returns the real-node image's cache dir; a missing piece is an
 * error naming what to run. The image is not built here (minutes cold, needs debootstrap).
 */
export function realNodePrerequisites(): string {
  if (process.getuid?.() !== 0)
    throw new UsageError('--real-nodes needs root (systemd-nspawn boots each node): run it as root');
  try {
    // commands run inside a node through nsenter (hack/real-node/container.ts)
    execFileSync('sh', ['-c', 'command -v nsenter'], { stdio: 'ignore' });
  } catch {
    throw new UsageError('--real-nodes needs nsenter (util-linux): apt-get install util-linux');
  }
  const images = dirname(runsDir());
  const built = existsSync(images)
    ? readdirSync(images).some((d) => existsSync(join(images, d, 'nspawn', 'systemd-nspawn')))
    : false;
  if (!built)
    throw new UsageError(
      `--real-nodes boots the real-node image, which is not built on this machine (${images} holds none): run hack/real-node/build.sh as root once (apt-get install debootstrap first; it unpacks systemd-nspawn too)`,
    );
  // the current image: the one built, or its layer again (seconds) where hack/real-node/os changed
  const cache = realNodeCache();
  if (!existsSync(join(cache, 'nspawn', 'systemd-nspawn')))
    throw new UsageError(`${cache} has no nspawn/systemd-nspawn: run hack/real-node/build.sh as root`);
  return cache;
}
