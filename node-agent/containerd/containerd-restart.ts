/**
 * When gardener v1.150.0's agent restarts containerd for its config.toml (changes.go
 * `configFileChanged`, reconciler.go): with no previous OSC, when the previous one had no containerd
 * configuration, or when the sandbox image, the plugins or the cgroup driver changed; and only
 * when containerd.service is not restarted by a unit command anyway.
 */
import type { OperatingSystemConfig } from '../../api/index.js';
import type { Plan } from '../planner/plan.js';
import { semanticEqual } from '../planner/semantic-equal.js';
import { CONTAINERD } from './containerd-paths.js';

export function containerdConfigChanged(
  previous: OperatingSystemConfig | undefined,
  next: OperatingSystemConfig,
): boolean {
  if (!next.spec.criConfig?.containerd) return false;
  const before = previous?.spec.criConfig;
  if (!before?.containerd) return true;
  const after = next.spec.criConfig;
  return (
    before.containerd.sandboxImage !== after.containerd!.sandboxImage ||
    !semanticEqual(before.containerd.plugins, after.containerd!.plugins) ||
    before.cgroupDriver !== after.cgroupDriver
  );
}

export function withContainerdRestart(plan: Plan, changed: boolean): Plan {
  if (!changed || plan.commands.some((c) => c.unit === CONTAINERD.unit)) return plan;
  return { ...plan, commands: [...plan.commands, { unit: CONTAINERD.unit, command: 'restart' }] };
}
