/** A small OSC with what drift detection compares: inline files, an OS unit with a drop-in, units of ours. */
import type { OperatingSystemConfig, OscFile } from '../../../api/index.js';

export const file = (path: string, data: string, permissions = 0o644): OscFile => ({
  path,
  permissions,
  content: { inline: { encoding: '', data } },
});

export const KUBELET_UNIT =
  '[Service]\nExecStart=/opt/bin/kubelet --config=/var/lib/kubelet/config/kubelet\n';

export function driftOsc(): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: 'osc' },
    spec: {
      type: 't',
      purpose: 'reconcile',
      files: [
        file('/var/lib/kubelet/config/kubelet', 'kind: KubeletConfiguration\nmaxPods: 110\n'),
        file('/etc/sysctl.d/99-k8s-general.conf', 'vm.max_map_count = 135217728\n'),
        file('/var/lib/kubelet/ca.crt', 'CA\n', 0o600),
      ],
      units: [
        {
          name: 'kubelet.service',
          command: 'start',
          enable: true,
          content: KUBELET_UNIT,
          filePaths: ['/var/lib/kubelet/config/kubelet', '/var/lib/kubelet/ca.crt'],
        },
        {
          name: 'systemd-sysctl.service',
          command: 'restart',
          enable: true,
          filePaths: ['/etc/sysctl.d/99-k8s-general.conf'],
        },
        {
          name: 'containerd.service',
          command: 'start',
          enable: true,
          dropIns: [{ name: '30-env.conf', content: '[Service]\nEnvironment=A=1\n' }],
        },
      ],
    },
    status: {
      extensionFiles: [file('/etc/motd', 'hello\n')],
    },
  };
}
