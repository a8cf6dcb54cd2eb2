/**
 * A containerd for tests and tools: what `containerd config default` prints (abridged from
 * containerd 1.7, config version 2, and 2.2, config version 3) and the version it reports, with
 * a count of how often each was asked.
 */
import type { ContainerdTool } from '../../node-agent/containerd/containerd-tool.js';

export const CONTAINERD_17_DEFAULT = `disabled_plugins = []
imports = []
oom_score = 0
root = "/var/lib/containerd"
state = "/run/containerd"
version = 2

[grpc]
  address = "/run/containerd/containerd.sock"

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "registry.k8s.io/pause:3.8"

    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "/opt/cni/bin"
      conf_dir = "/etc/cni/net.d"

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "runc"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
            SystemdCgroup = false

    [plugins."io.containerd.grpc.v1.cri".registry]
      config_path = ""
`;

export const CONTAINERD_22_DEFAULT = `version = 3
root = '/var/lib/containerd'
state = '/run/containerd'
disabled_plugins = []

[grpc]
  address = '/run/containerd/containerd.sock'

[plugins]
  [plugins.'io.containerd.cri.v1.images']
    snapshotter = 'overlayfs'

    [plugins.'io.containerd.cri.v1.images'.pinned_images]
      sandbox = 'registry.k8s.io/pause:3.10'

    [plugins.'io.containerd.cri.v1.images'.registry]
      config_path = ''

  [plugins.'io.containerd.cri.v1.runtime']
    [plugins.'io.containerd.cri.v1.runtime'.cni]
      bin_dir = ''
      conf_dir = '/etc/cni/net.d'

    [plugins.'io.containerd.cri.v1.runtime'.containerd]
      default_runtime_name = 'runc'

      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes]
        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
          runtime_type = 'io.containerd.runc.v2'

          [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
            SystemdCgroup = false
`;

export class FakeContainerd implements ContainerdTool {
  defaultConfigCalls = 0;
  versionCalls = 0;

  constructor(
    private readonly defaults: string = CONTAINERD_17_DEFAULT,
    private readonly reported: string = '1.7.23~ds2',
  ) {}

  async defaultConfig(): Promise<string> {
    this.defaultConfigCalls++;
    return this.defaults;
  }

  async version(): Promise<string> {
    this.versionCalls++;
    return this.reported;
  }
}
