/**
 * Drift: a difference between what the last apply left on the node and what the node has now
 * (docs/node-agent.md#drift). Data, so `plan` can print it, the agent can put it on its Node, and
 * an apply can decide per item what to do with it (drift-policy.ts).
 */

/** What a drift is about: an OSC file, a unit file, a drop-in, or systemd's state of a unit. */
export type DriftObject = 'file' | 'unit-file' | 'drop-in' | 'unit';

export const DRIFT_KINDS = [
  'missing',
  'content',
  'mode',
  'owner',
  'type',
  'extra-drop-in',
  'enablement',
  'masked',
  'not-running',
] as const;

export type DriftKind =
  /** The file, unit file or drop-in is gone. */
  | 'missing'
  /** Other bytes than were written. */
  | 'content'
  /** Other permission bits. */
  | 'mode'
  /** Another owner or group than the agent's (root on a node). */
  | 'owner'
  /** Not a regular file any more (a directory, or a symlink: a masked unit file). */
  | 'type'
  /** A drop-in in the directory of a unit the agent manages that no OSC lists. */
  | 'extra-drop-in'
  /** Enabled where the OSC disables it, or the other way round. */
  | 'enablement'
  /** Masked (`systemctl mask`): systemd will not start it. */
  | 'masked'
  /** A unit the OSC starts is not running (failed, or stopped). */
  | 'not-running';

/**
 * Who the drifted thing belongs to: `rendered` (the OSC's spec, what gardenlet renders),
 * `extension` (status.extension*, the OS extension's), `node` (nothing of ours: an extra drop-in).
 */
export type DriftOrigin = 'rendered' | 'extension' | 'node';

export interface Drift {
  readonly object: DriftObject;
  readonly kind: DriftKind;
  /** The host path, for files, unit files and drop-ins. */
  readonly path?: string;
  /** The unit, for unit files, drop-ins and unit state. */
  readonly unit?: string;
  readonly origin: DriftOrigin;
  /** What the last apply left, short (`sha256:0a1b2c3d4e5f`, `0644`, `0:0`, `enabled`). */
  readonly expected: string;
  /** What the node has, in the same form (`absent` when it is gone). */
  readonly actual: string;
  /**
   * The node's bytes of a file, unit file or drop-in whose content drifted, base64: what a repair
   * plans against, so the least-disruption rules see the real change.
   */
  readonly actualContent?: string;
}

/** One line per drift, stable: `file /etc/a content`, `unit kubelet.service not-running`. */
export function driftKey(d: Pick<Drift, 'object' | 'path' | 'unit' | 'kind'>): string {
  return `${d.object} ${d.path ?? d.unit ?? ''} ${d.kind}`;
}

/** `/etc/a: content (expected sha256:…, node has sha256:…)`. */
export function driftText(d: Drift): string {
  const what = d.object === 'unit' || d.path === undefined ? (d.unit ?? '') : d.path;
  return `${d.object} ${what}: ${d.kind} (expected ${d.expected}, node has ${d.actual})`;
}
