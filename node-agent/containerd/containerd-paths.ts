/**
 * Where gardener v1.150.0's agent keeps containerd's configuration and which keys of config.toml
 * it sets per config version (pkg/nodeagent/controller/operatingsystemconfig/containerd.go and
 * containerd_config.go `containerdConfigPaths`).
 */
export const CONTAINERD = {
  baseDir: '/etc/containerd',
  configFile: '/etc/containerd/config.toml',
  importsDir: '/etc/containerd/conf.d',
  certsDir: '/etc/containerd/certs.d',
  runtimesBinDir: '/var/bin/containerruntimes',
  cniBinDir: '/opt/cni/bin',
  unit: 'containerd.service',
  envDropIn: '30-env_config.conf',
} as const;

/** The directories made (0755) before config.toml is read. */
export const CONTAINERD_DIRS = [
  CONTAINERD.runtimesBinDir,
  CONTAINERD.baseDir,
  CONTAINERD.importsDir,
  CONTAINERD.certsDir,
] as const;

export type ContainerdConfigVersion = 1 | 2 | 3 | 4;

export interface ContainerdConfigPaths {
  readonly registryConfigPath: readonly string[];
  readonly sandboxImage: readonly string[];
  readonly cgroupDriver: readonly string[];
  readonly cniBinDir: readonly string[];
  /** Config ≥ 3 on containerd ≥ 2.2: `bin_dirs`, a list. */
  readonly cniBinDirs?: readonly string[];
}

const CRI_V1 = 'io.containerd.grpc.v1.cri';
const IMAGES = 'io.containerd.cri.v1.images';
const RUNTIME = 'io.containerd.cri.v1.runtime';

const V1_V2: ContainerdConfigPaths = {
  registryConfigPath: ['plugins', CRI_V1, 'registry', 'config_path'],
  sandboxImage: ['plugins', CRI_V1, 'sandbox_image'],
  cgroupDriver: ['plugins', CRI_V1, 'containerd', 'runtimes', 'runc', 'options', 'SystemdCgroup'],
  cniBinDir: ['plugins', CRI_V1, 'cni', 'bin_dir'],
};

const V3_V4: ContainerdConfigPaths = {
  registryConfigPath: ['plugins', IMAGES, 'registry', 'config_path'],
  sandboxImage: ['plugins', IMAGES, 'pinned_images', 'sandbox'],
  cgroupDriver: ['plugins', RUNTIME, 'containerd', 'runtimes', 'runc', 'options', 'SystemdCgroup'],
  cniBinDir: ['plugins', RUNTIME, 'cni', 'bin_dir'],
  cniBinDirs: ['plugins', RUNTIME, 'cni', 'bin_dirs'],
};

export function containerdConfigPaths(version: ContainerdConfigVersion): ContainerdConfigPaths {
  return version <= 2 ? V1_V2 : V3_V4;
}

/** Plugin paths of the CRI v1 runtimes move in config ≥ 3 (`pluginPathReplacements`). */
const PLUGIN_PATH_REPLACEMENTS: readonly (readonly [readonly string[], readonly string[]])[] = [
  [
    ['plugins', CRI_V1, 'containerd', 'runtimes'],
    ['plugins', RUNTIME, 'containerd', 'runtimes'],
  ],
];

export function pluginPath(path: readonly string[], version: ContainerdConfigVersion): readonly string[] {
  if (version < 3) return path;
  for (const [find, replace] of PLUGIN_PATH_REPLACEMENTS) {
    if (find.length <= path.length && find.every((key, i) => path[i] === key))
      return [...replace, ...path.slice(find.length)];
  }
  return path;
}
