/**
 * The kubelet component (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/kubelet/component.go): its
 * unit with the flags, CA and config files, and (gate on) the binary from the hyperkube image; with
 * the gate off the legacy monitor unit and the copy-binary ExecStartPre instead.
 */
import { type OscFile, type OscUnit, PATH, stringifyYaml, UNIT } from '../../api/index.js';
import { b64, type Component, MODE } from '../component.js';
import { kubeletCliFlags } from './cli-flags.js';
import { kubeletHealthMonitorScript } from './health-monitor-script.js';
import { kubeletConfiguration } from './kubelet-configuration.js';

const HEALTH_MONITOR = '/opt/bin/health-monitor-kubelet';
const COPY_BINARY = '/var/lib/kubelet/copy-kubernetes-binary.sh';

export function kubeletUnitContent(flags: readonly string[], legacy: boolean): string {
  const lines = [
    '[Unit]',
    'Description=kubelet daemon',
    'Documentation=https://kubernetes.io/docs/admin/kubelet',
    'After=containerd.service',
    '[Install]',
    'WantedBy=multi-user.target',
    '[Service]',
    'Restart=always',
    'RestartSec=5',
    'EnvironmentFile=/etc/environment',
    'EnvironmentFile=-/var/lib/kubelet/extra_args',
  ];
  if (legacy) lines.push(`ExecStartPre=${COPY_BINARY} kubelet`);
  const execStart = `ExecStart=${PATH.kubeletBinary} \\\n    ${flags.join(' \\\n').replaceAll('\n', '\n    ')} $KUBELET_EXTRA_ARGS`;
  return `${lines.join('\n')}\n${execStart}`;
}

const MONITOR_UNIT = `[Unit]
Description=Kubelet-monitor daemon
After=kubelet.service
[Install]
WantedBy=multi-user.target
[Service]
Restart=always
EnvironmentFile=/etc/environment
ExecStartPre=${COPY_BINARY} kubectl
ExecStart=${HEALTH_MONITOR}`;

export const kubelet: Component = (ctx) => {
  const legacy = !ctx.useGardenerNodeAgent;
  const flags = kubeletCliFlags(ctx);
  const config = kubeletConfiguration({
    params: ctx.kubeletConfigParameters,
    clusterDnsAddress: ctx.clusterDnsAddress,
    clusterDomain: ctx.clusterDomain,
    kubernetesVersion: ctx.kubernetesVersion,
  });
  const files: OscFile[] = [
    { path: PATH.kubeletCaBundle, permissions: MODE.rw, content: b64(ctx.kubeletCaBundle) },
    { path: PATH.kubeletConfig, permissions: MODE.rw, content: b64(stringifyYaml(config)) },
  ];
  const filePaths: string[] = [PATH.kubeletCaBundle, PATH.kubeletConfig];
  const units: OscUnit[] = [];
  if (legacy) {
    units.push({ name: 'kubelet-monitor.service', command: 'start', enable: true, content: MONITOR_UNIT });
    files.unshift({
      path: HEALTH_MONITOR,
      permissions: MODE.rwx,
      content: b64(kubeletHealthMonitorScript()),
    });
  } else {
    const image = ctx.images.hyperkube;
    if (!image) throw new Error('the hyperkube image is missing');
    files.push({
      path: PATH.kubeletBinary,
      permissions: MODE.rwx,
      content: { imageRef: { image, filePathInImage: '/kubelet' } },
    });
    filePaths.push(PATH.kubeletBinary);
  }
  units.push({
    name: UNIT.kubelet,
    command: 'start',
    enable: true,
    content: kubeletUnitContent(flags, legacy),
    filePaths,
  });
  return { units, files };
};
