/**
 * What remains of the containerd component in the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/containerd/component.go and
 * its logrotate/logrotate.go): rotation of the pod logs once a day, old rotations deleted after 14
 * days, and a `containerd.service` entry without content that only lists the local root
 * certificates, so that a CA change restarts containerd. No monitor (removed in v1.122.0, #12297)
 * and no initializer (v1.117.0, #11747): the node agent writes containerd's config from
 * `criConfig`.
 */
import type { OscUnit } from '../../api/index.js';
import { type ComponentOutput, MODE, plain } from '../component.js';
import { ROOT_CERTIFICATES_PATH } from '../root-certificates/root-certificates.js';
import { CONTAINERD_PATH, CONTAINERD_UNIT } from './containerd.js';

const POD_LOGS = '/var/log/pods/*/*/*.log';
/** The directory before the first wildcard, as `logrotate.Config` cuts it. */
const POD_LOG_DIR = '/var/log/pods';

const LOGROTATE_CONFIG_V150 = `${POD_LOGS} {
    rotate 14
    copytruncate
    missingok
    compress
    daily
    dateext
    dateformat -%Y%m%d-%s
    create 0644 root root
}
`;

const LOGROTATE_SERVICE_V150 = [
  '[Unit]',
  'Description=Rotate and Compress System Logs',
  'StartLimitBurst=5',
  'StartLimitIntervalSec=30',
  '[Service]',
  `ExecStart=/usr/sbin/logrotate -s /var/lib/containerd-logrotate.status ${CONTAINERD_PATH.logrotateConfig}`,
  `ExecStartPost=/bin/sh -c 'find ${POD_LOG_DIR} -name "*.log.*" -mtime +14 -delete 2>&1 || [ ! -d ${POD_LOG_DIR} ]'`,
  'Restart=on-failure',
  'RestartSec=5',
  '[Install]',
  'WantedBy=multi-user.target',
].join('\n');

const LOGROTATE_TIMER_V150 = [
  '[Unit]',
  'Description=Log Rotation once a day',
  '[Timer]',
  'OnCalendar=daily',
  'AccuracySec=1min',
  'RandomizedDelaySec=4h',
  'Persistent=true',
  '[Install]',
  'WantedBy=multi-user.target',
].join('\n');

export function containerdV150(): ComponentOutput {
  const units: OscUnit[] = [
    // The timer starts the service; the service itself has no command (upstream sets none).
    {
      name: CONTAINERD_UNIT.logrotate,
      enable: true,
      content: LOGROTATE_SERVICE_V150,
      filePaths: [CONTAINERD_PATH.logrotateConfig],
    },
    { name: CONTAINERD_UNIT.logrotateTimer, command: 'start', enable: true, content: LOGROTATE_TIMER_V150 },
    { name: 'containerd.service', filePaths: [ROOT_CERTIFICATES_PATH.localBundle] },
  ];
  return {
    units,
    files: [
      { path: CONTAINERD_PATH.logrotateConfig, permissions: MODE.rw, content: plain(LOGROTATE_CONFIG_V150) },
    ],
  };
}
