/**
 * What gardener v1.150.0's agent changes in containerd's config.toml, in its order
 * (pkg/nodeagent/controller/operatingsystemconfig/containerd_config.go
 * `ensureContainerdConfiguration`; pkg/utils/structuredmap `SetMapEntry`): the registry config
 * path, the conf.d import, the sandbox image, the CNI binary directory, `SystemdCgroup` from the
 * cgroup driver, then each plugin entry of the OSC. Pure: the caller reads and writes the file.
 */
import type { OperatingSystemConfig } from '../../api/index.js';
import { isTomlTable, setTomlKey, type TomlTable, type TomlValue } from '../../api/toml/toml-value.js';
import {
  CONTAINERD,
  type ContainerdConfigVersion,
  containerdConfigPaths,
  pluginPath,
} from './containerd-paths.js';
import { mergeJsonInto } from './json-merge.js';

export type CriConfig = NonNullable<OperatingSystemConfig['spec']['criConfig']>;

export class ContainerdConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContainerdConfigError';
  }
}

/** `getContainerdConfigFileVersion`: no `version` is 1; otherwise an integer from 1 to 4. */
export function containerdConfigVersion(config: TomlTable): ContainerdConfigVersion {
  const version = config.version;
  if (version === undefined) return 1;
  if (typeof version !== 'bigint')
    throw new ContainerdConfigError(
      `cannot assert containerd config file version "${String(version)}" as an int64`,
    );
  if (version < 1n || version > 4n)
    throw new ContainerdConfigError(`unsupported containerd config file version ${version}`);
  return Number(version) as ContainerdConfigVersion;
}

type SetFn = (value: TomlValue) => TomlValue;

/** `SetMapEntry`: missing tables on the way are made, a non-table on the way is an error. */
function setEntry(config: TomlTable, path: readonly string[], name: string, set: SetFn): void {
  let table = config;
  for (const key of path.slice(0, -1)) {
    // a key present with nil (a removed plugin) is not a table either, as in Go
    if (!Object.hasOwn(table, key)) setTomlKey(table, key, {});
    const next = table[key];
    if (!isTomlTable(next))
      throw new ContainerdConfigError(
        `unable setting "${name}" in containerd config.toml: unable to traverse into data structure because value at "${key}" is not a map`,
      );
    table = next;
  }
  const last = path[path.length - 1]!;
  setTomlKey(table, last, set(table[last]));
}

export interface PatchOptions {
  /** containerd ≥ 2.2 (asked from the running containerd): config ≥ 3 then takes `bin_dirs`. */
  readonly atLeast22: boolean;
}

export function patchContainerdConfig(config: TomlTable, cri: CriConfig, o: PatchOptions): TomlTable {
  const version = containerdConfigVersion(config);
  const paths = containerdConfigPaths(version);
  const importPath = `${CONTAINERD.importsDir}/*.toml`;
  setEntry(config, paths.registryConfigPath, 'registry config path', () => CONTAINERD.certsDir);
  setEntry(config, ['imports'], 'imports paths', (value) => {
    if (!Array.isArray(value)) return [importPath];
    return value.includes(importPath) ? value : [...value, importPath];
  });
  setEntry(config, paths.sandboxImage, 'sandbox image', (value) =>
    cri.containerd ? cri.containerd.sandboxImage : value,
  );
  if (version >= 3 && o.atLeast22 && paths.cniBinDirs) {
    setEntry(config, paths.cniBinDirs, 'CNI plugin dirs', () => [CONTAINERD.cniBinDir]);
    setEntry(config, paths.cniBinDir, 'remove deprecated CNI plugin dir', () => null);
  } else {
    setEntry(config, paths.cniBinDir, 'CNI plugin dir', () => CONTAINERD.cniBinDir);
  }
  if (cri.cgroupDriver !== undefined)
    setEntry(config, paths.cgroupDriver, 'cgroup driver', () => cri.cgroupDriver === 'systemd');
  for (const plugin of cri.containerd?.plugins ?? []) {
    const path = pluginPath(['plugins', ...(plugin.path ?? [])], version);
    setEntry(config, path, 'plugin configuration', (value) => {
      const op = plugin.op ?? 'add';
      if (op === 'remove') return null;
      if (op !== 'add') throw new ContainerdConfigError(`operation "${op}" is not supported`);
      const table = isTomlTable(value) ? value : {};
      return plugin.values === undefined ? table : mergeJsonInto(table, plugin.values);
    });
  }
  return config;
}
