/**
 * Whether this machine can give a node the cgroup v2 controllers a kubelet needs for its QoS
 * cgroups and node allocatable enforcement (cpu, memory, pids): on a hybrid host they are bound to
 * cgroup v1 and the unified hierarchy offers none, so a kubelet *restart* with `cgroupsPerQOS:
 * true` crash-loops (`Failed to start ContainerManager … kubepods/besteffort/cpu.weight: no such
 * file or directory`) and pod sandboxes fail (runc cannot set cpu.weight). There, and only there,
 * the tests override exactly `cgroupsPerQOS: false` and `enforceNodeAllocatable: []`.
 */
import { readFileSync, statfsSync } from 'node:fs';

export const NEEDED_CONTROLLERS = ['cpu', 'memory', 'pids'] as const;
const CGROUP2_MAGIC = 0x63677270;

/** The cgroup2 hierarchy a node's cgroup is made in (node.sh's cgroup2_base). */
export function cgroup2Base(): string {
  if (statfsSync('/sys/fs/cgroup').type === CGROUP2_MAGIC) return '/sys/fs/cgroup';
  return '/sys/fs/cgroup/unified';
}

/** The needed controllers the cgroup2 hierarchy does not offer. Pure over `controllers`. */
export function missingControllers(controllers: string): string[] {
  const offered = new Set(controllers.trim().split(/\s+/));
  return NEEDED_CONTROLLERS.filter((c) => !offered.has(c));
}

export interface KubeletOverride {
  /** The KubeletConfiguration fields set over the rendered ones; empty when none is needed. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** One line that says what was overridden and why, or that nothing was. */
  readonly note: string;
}

export function kubeletOverride(base = cgroup2Base()): KubeletOverride {
  let controllers = '';
  try {
    controllers = readFileSync(`${base}/cgroup.controllers`, 'utf8');
  } catch {
    // no cgroup2 at all: every controller is missing
  }
  const missing = missingControllers(controllers);
  if (missing.length === 0)
    return {
      fields: {},
      note: `cgroup v2 controllers ${NEEDED_CONTROLLERS.join(', ')} delegable: rendered kubelet configuration unchanged`,
    };
  return {
    fields: { cgroupsPerQOS: false, enforceNodeAllocatable: [] },
    note:
      `override applied: cgroupsPerQOS: false, enforceNodeAllocatable: [] (${base} offers ` +
      `"${controllers.trim()}", lacks ${missing.join(', ')}: a kubelet restart with QoS cgroups would crash-loop)`,
  };
}

/** The rendered KubeletConfiguration text with `fields` set (top-level keys, one line each). Pure. */
export function overrideKubeletConfig(text: string, fields: Readonly<Record<string, unknown>>): string {
  let out = text;
  for (const [key, value] of Object.entries(fields)) {
    const line = `${key}: ${JSON.stringify(value)}`;
    // a top-level key and the indented or dashed lines of its value
    const existing = new RegExp(`^${key}:.*(?:\\n(?:[ -].*))*`, 'm');
    out = existing.test(out) ? out.replace(existing, line) : `${out.trimEnd()}\n${line}\n`;
  }
  return out;
}
