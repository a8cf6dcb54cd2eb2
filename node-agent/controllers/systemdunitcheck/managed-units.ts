/**
 * Which units the `SystemdUnitsReady` check looks at, and whether each should run (gardener
 * v1.150.0 pkg/nodeagent/controller/systemdunitcheck/reconciler.go `readManagedUnits`): the
 * `spec.units` of the last applied OSC, then its `status.extensionUnits` on top (an explicit
 * `enable` overrides, new names are added), sorted by name. A unit without `enable` counts as
 * enabled when the OSC gives it content or drop-ins: the OSC customises it, so it is watched.
 * Pure.
 */
import type { OperatingSystemConfig, OscUnit } from '../../../api/index.js';

export interface ManagedUnit {
  readonly name: string;
  readonly enabled: boolean;
}

function carriesConfiguration(unit: OscUnit): boolean {
  return unit.content !== undefined || (unit.dropIns?.length ?? 0) > 0;
}

export function managedUnits(osc: OperatingSystemConfig): ManagedUnit[] {
  const units: { name: string; enabled: boolean }[] = (osc.spec.units ?? []).map((unit) => ({
    name: unit.name,
    enabled: unit.enable ?? carriesConfiguration(unit),
  }));
  for (const unit of osc.status?.extensionUnits ?? []) {
    const known = units.find((u) => u.name === unit.name);
    if (known) {
      if (unit.enable !== undefined) known.enabled = unit.enable;
    } else units.push({ name: unit.name, enabled: unit.enable ?? carriesConfiguration(unit) });
  }
  // Go's strings.Compare: by UTF-8 bytes, as < on strings of unit-name characters
  return units.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
