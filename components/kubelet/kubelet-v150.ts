/**
 * The kubelet component of the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/kubelet/component.go): the CA
 * file (0644), the config file (0600 since v1.106.0) and the binary from the hyperkube image; the
 * unit with the HTTP/2 health-check timeouts derived from the node monitor grace period
 * (v1.102.0), and the local root certificates among its files, so a new CA restarts the kubelet.
 * The flags are v1.91.4's for the minors v1.150.0 supports (1.32-1.36 know no
 * `--container-runtime`).
 */
import { type OscFile, type OscUnit, PATH, type SemVer, stringifyYaml, UNIT } from '../../api/index.js';
import { b64, type ComponentOutput, MODE } from '../component.js';
import { ROOT_CERTIFICATES_PATH } from '../root-certificates/root-certificates.js';
import { kubeletCliFlags } from './cli-flags.js';
import {
  type KubeletConfigurationV150Input,
  kubeletConfigurationV150,
} from './kubelet-configuration-v150.js';

/**
 * `calcKubeletHTTP2Timeouts`: the kubelet's HTTP/2 read-idle and ping timeouts, in whole seconds,
 * short enough that a dead connection to the API server is noticed before the node controller
 * marks the node unknown; 30s and 15s from a grace period of 46s up.
 */
export function kubeletHttp2Timeouts(nodeMonitorGracePeriodSeconds: number): {
  readIdle: number;
  ping: number;
} {
  if (nodeMonitorGracePeriodSeconds >= 46) return { readIdle: 30, ping: 15 };
  const rest = nodeMonitorGracePeriodSeconds - 2;
  const positiveOrZero = (x: number) => Math.max(0, Math.trunc(x));
  return { readIdle: positiveOrZero((rest * 2) / 3), ping: positiveOrZero((rest * 1) / 3) };
}

export function kubeletUnitContentV150(
  flags: readonly string[],
  nodeMonitorGracePeriodSeconds: number,
): string {
  const { readIdle, ping } = kubeletHttp2Timeouts(nodeMonitorGracePeriodSeconds);
  return [
    '[Unit]',
    'Description=kubelet daemon',
    'Documentation=https://kubernetes.io/docs/admin/kubelet',
    'After=containerd.service',
    '[Install]',
    'WantedBy=multi-user.target',
    '[Service]',
    'Restart=always',
    'RestartSec=5',
    `Environment="HTTP2_READ_IDLE_TIMEOUT_SECONDS=${readIdle}" "HTTP2_PING_TIMEOUT_SECONDS=${ping}"`,
    'EnvironmentFile=/etc/environment',
    'EnvironmentFile=-/var/lib/kubelet/extra_args',
    `ExecStart=${PATH.kubeletBinary} \\\n    ${flags.join(' \\\n').replaceAll('\n', '\n    ')} $KUBELET_EXTRA_ARGS`,
  ].join('\n');
}

export interface KubeletV150Input extends KubeletConfigurationV150Input {
  readonly kubernetesVersion: SemVer;
  readonly criName: string;
  readonly nodeLabels: Readonly<Record<string, string>>;
  readonly preferIPv6: boolean;
  readonly kubeletCaBundle: string;
  /** The hyperkube image (`hyperkube` of the image vector, tagged with the kubelet's version). */
  readonly hyperkubeImage: string;
  /** The shoot's kube-controller-manager `nodeMonitorGracePeriod`, in seconds. */
  readonly nodeMonitorGracePeriodSeconds: number;
}

export function kubeletV150(input: KubeletV150Input): ComponentOutput {
  const files: OscFile[] = [
    { path: PATH.kubeletCaBundle, permissions: MODE.rw, content: b64(input.kubeletCaBundle) },
    {
      path: PATH.kubeletConfig,
      permissions: MODE.secret,
      content: b64(stringifyYaml(kubeletConfigurationV150(input))),
    },
    {
      path: PATH.kubeletBinary,
      permissions: MODE.rwx,
      content: { imageRef: { image: input.hyperkubeImage, filePathInImage: '/kubelet' } },
    },
  ];
  const unit: OscUnit = {
    name: UNIT.kubelet,
    command: 'start',
    enable: true,
    content: kubeletUnitContentV150(kubeletCliFlags(input), input.nodeMonitorGracePeriodSeconds),
    filePaths: [...files.map((f) => f.path), ROOT_CERTIFICATES_PATH.localBundle],
  };
  return { units: [unit], files };
}
