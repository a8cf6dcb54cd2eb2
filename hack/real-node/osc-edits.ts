/** Changes to a pool's OSC as a test makes them: the decoded OSC, edited, for gardenlet to publish. */
import { decodeOperatingSystemConfig, type OperatingSystemConfig, type OscUnit } from '../../api/index.js';

export function decodeOsc(yaml: string): OperatingSystemConfig {
  const decoded = decodeOperatingSystemConfig(yaml);
  if (!decoded.ok) throw new Error(`the OSC does not decode: ${JSON.stringify(decoded.errors)}`);
  return decoded.value;
}

/** A copy of the OSC with the content of the (inline) file at `path` changed by `edit`. */
export function editFile(
  osc: OperatingSystemConfig,
  path: string,
  edit: (content: string) => string,
): OperatingSystemConfig {
  const next = structuredClone(osc);
  const inline = next.spec.files?.find((f) => f.path === path)?.content.inline;
  if (!inline) throw new Error(`the OSC has no inline file ${path}`);
  const current =
    inline.encoding === 'b64' ? Buffer.from(inline.data, 'base64').toString('utf8') : inline.data;
  const data = edit(current);
  if (data === current) throw new Error(`the edit does not change ${path}`);
  inline.data = inline.encoding === 'b64' ? Buffer.from(data).toString('base64') : data;
  return next;
}

export function appendToFile(osc: OperatingSystemConfig, path: string, text: string): OperatingSystemConfig {
  return editFile(osc, path, (content) => content + text);
}

/** The kubelet configuration of the OSC with another maxPods. */
export function withMaxPods(osc: OperatingSystemConfig, maxPods: number): OperatingSystemConfig {
  return editFile(osc, '/var/lib/kubelet/config/kubelet', (c) =>
    c.replace(/^maxPods: \d+$/m, `maxPods: ${maxPods}`),
  );
}

/** A copy of the OSC without the named units (and without the files at `paths`). */
export function withoutUnits(
  osc: OperatingSystemConfig,
  units: readonly string[],
  paths: readonly string[] = [],
): OperatingSystemConfig {
  const next = structuredClone(osc);
  next.spec.units = next.spec.units?.filter((u) => !units.includes(u.name));
  next.spec.files = next.spec.files?.filter((f) => !paths.includes(f.path));
  return next;
}

export function withUnit(osc: OperatingSystemConfig, unit: OscUnit): OperatingSystemConfig {
  const next = structuredClone(osc);
  next.spec.units = [...(next.spec.units ?? []), unit];
  return next;
}

export function unitNames(osc: OperatingSystemConfig): string[] {
  return (osc.spec.units ?? []).map((u) => u.name);
}

/** A copy of the OSC with the content of unit `name` changed by `edit`. */
export function editUnit(
  osc: OperatingSystemConfig,
  name: string,
  edit: (content: string) => string,
): OperatingSystemConfig {
  const next = structuredClone(osc);
  const unit = next.spec.units?.find((u) => u.name === name);
  if (unit?.content === undefined) throw new Error(`the OSC has no unit ${name} with content`);
  const content = edit(unit.content);
  if (content === unit.content) throw new Error(`the edit does not change ${name}`);
  (unit as { content?: string }).content = content;
  return next;
}

/** A copy of the OSC with one more inline file. */
export function withFile(
  osc: OperatingSystemConfig,
  path: string,
  data: string,
  permissions = 0o644,
): OperatingSystemConfig {
  const next = structuredClone(osc);
  if (next.spec.files?.some((f) => f.path === path)) throw new Error(`the OSC has ${path} already`);
  const file = { path, permissions, content: { inline: { encoding: '', data } } };
  next.spec.files = [...(next.spec.files ?? []), file as NonNullable<typeof next.spec.files>[number]];
  return next;
}

export function unitContent(osc: OperatingSystemConfig, name: string): string {
  const content = osc.spec.units?.find((u) => u.name === name)?.content;
  if (content === undefined) throw new Error(`the OSC has no unit ${name} with content`);
  return content;
}
