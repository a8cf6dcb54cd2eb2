/**
 * The drop-in gardener v1.150.0's agent adds to `containerd.service` in memory, before the diff,
 * (containerd.go `addContainerdEnvironmentDropIn`): runtimes in /var/bin/containerruntimes are found
 * on containerd's PATH. The unit is added without content when the OSC has none. The PATH is the
 * agent's own at that moment. Upstream adds it to any OSC with a `criConfig`; ours only where the
 * OSC hands containerd to the agent (`criConfig.containerd`, the v1.150.0 contract), so a v1.91.4
 * OSC is applied exactly as before (docs/compatibility.md V150-21). A drop-in of that name already in
 * the OSC (upstream's agent writes the OSC it applied, drop-in included, as last applied) is
 * replaced, so a node upstream's agent left is not seen as changed.
 */
import type { OperatingSystemConfig, OscDropIn } from '../../api/index.js';
import { CONTAINERD } from './containerd-paths.js';

export function withContainerdEnvDropIn(
  osc: OperatingSystemConfig,
  agentPath: string,
): OperatingSystemConfig {
  if (!osc.spec.criConfig?.containerd) return osc;
  const dropIn: OscDropIn = {
    name: CONTAINERD.envDropIn,
    content: `[Service]\nEnvironment="PATH=${CONTAINERD.runtimesBinDir}:${agentPath}"\n`,
  };
  const units = [...(osc.spec.units ?? [])];
  const i = units.findIndex((u) => u.name === CONTAINERD.unit);
  // one of that name already there (a last-applied OSC upstream's agent re-encoded) is replaced
  const others = (dropIns: readonly OscDropIn[] | undefined) =>
    (dropIns ?? []).filter((d) => d.name !== dropIn.name);
  if (i >= 0) units[i] = { ...units[i]!, dropIns: [...others(units[i]!.dropIns), dropIn] };
  else units.push({ name: CONTAINERD.unit, dropIns: [dropIn] } as (typeof units)[number]);
  return { ...osc, spec: { ...osc.spec, units } };
}
