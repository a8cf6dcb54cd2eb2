/** containerd of a real node, read from outside: its config.toml, its `config dump`, its registries. */
import { type OperatingSystemConfig, parseYaml } from '../../api/index.js';
import { decodeToml } from '../../api/toml/toml-decode.js';
import type { TomlTable } from '../../api/toml/toml-value.js';
import type { Container } from '../../hack/real-node/container.js';

/** Debian's containerd, not the image directory stand-ins first on the node's PATH. */
const CONTAINERD = '/usr/bin/containerd';

export async function containerdConfigFile(c: Container): Promise<TomlTable> {
  return decodeToml(await c.run(['cat', '/etc/containerd/config.toml']));
}

/** `containerd config dump`: the configuration containerd takes from its files, imports merged. */
export async function containerdConfigDump(c: Container): Promise<TomlTable> {
  return decodeToml(await c.run([CONTAINERD, 'config', 'dump']));
}

/** The value at a path of a TOML table (undefined where a table on the way is missing). */
export function tomlAt(table: TomlTable, path: readonly string[]): unknown {
  let value: unknown = table;
  for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
  return value;
}

/** The OSC with `plugins` and `registries` set in its criConfig.containerd. */
export function withContainerdConfig(
  osc: OperatingSystemConfig,
  change: {
    plugins?: NonNullable<NonNullable<OperatingSystemConfig['spec']['criConfig']>['containerd']>['plugins'];
    registries?: NonNullable<
      NonNullable<OperatingSystemConfig['spec']['criConfig']>['containerd']
    >['registries'];
  },
): OperatingSystemConfig {
  const next = structuredClone(osc);
  const containerd = next.spec.criConfig?.containerd;
  if (!containerd) throw new Error('the OSC has no criConfig.containerd');
  Object.assign(containerd, change);
  return next;
}

/** The kubelet's cgroup driver as the OSC renders it. */
export function renderedCgroupDriver(osc: OperatingSystemConfig): string | undefined {
  const inline = osc.spec.files?.find((f) => f.path === '/var/lib/kubelet/config/kubelet')?.content.inline;
  if (!inline) return undefined;
  const text = inline.encoding === 'b64' ? Buffer.from(inline.data, 'base64').toString('utf8') : inline.data;
  return (parseYaml(text) as { cgroupDriver?: string }).cgroupDriver;
}
