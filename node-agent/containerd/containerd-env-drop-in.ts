/**
 * The drop-in gardener v1.150.0's agent adds to `containerd.service` in memory, before the diff,
 * (containerd.go `addContainerdEnvironmentDropIn`): runtimes in /var/bin/containerruntimes are found
 * on containerd's PATH. The unit is added without content when the OSC has none. The PATH is the
 * agent's own at that moment. Upstream adds it to any OSC with a `criConfig`; ours only where the
 * OSC hands containerd to the agent (`criConfig.containerd`, the v1.150.0 contract), so a v1.91.4
 * OSC is applied exactly as before (docs/compatibility.md V150-21).
 */
import type { OperatingSystemConfig } from '../../api/index.js';
import { CONTAINERD } from './containerd-paths.js';

export function withContainerdEnvDropIn(
  osc: OperatingSystemConfig,
  agentPath: string,
): OperatingSystemConfig {
  if (!osc.spec.criConfig?.containerd) return osc;
  const dropIn = {
    name: CONTAINERD.envDropIn,
    content: `[Service]\nEnvironment="PATH=${CONTAINERD.runtimesBinDir}:${agentPath}"\n`,
  };
  const units = [...(osc.spec.units ?? [])];
  const i = units.findIndex((u) => u.name === CONTAINERD.unit);
  if (i >= 0) units[i] = { ...units[i]!, dropIns: [...(units[i]!.dropIns ?? []), dropIn] };
  else units.push({ name: CONTAINERD.unit, dropIns: [dropIn] } as (typeof units)[number]);
  return { ...osc, spec: { ...osc.spec, units } };
}
