/**
 * What keeps containerd healthy on the node (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/containerd/component.go):
 * rotation of the pod logs it writes (a timer every 10 minutes) and a monitor that restarts a hung
 * containerd.
 */
import { b64, type Component, MODE, plain } from '../component.js';
import { healthMonitorContainerdScript } from './health-monitor-script.js';

export const CONTAINERD_PATH = {
  logrotateConfig: '/etc/systemd/containerd.conf',
  healthMonitor: '/opt/bin/health-monitor-containerd',
} as const;

export const CONTAINERD_UNIT = {
  logrotate: 'containerd-logrotate.service',
  logrotateTimer: 'containerd-logrotate.timer',
  monitor: 'containerd-monitor.service',
} as const;

const LOGROTATE_CONFIG = `/var/log/pods/*/*/*.log {
    rotate 14
    copytruncate
    missingok
    notifempty
    compress
    daily
    dateext
    dateformat -%Y%m%d-%s
    create 0644 root root
}
`;

const LOGROTATE_SERVICE = [
  '[Unit]',
  'Description=Rotate and Compress System Logs',
  '[Service]',
  `ExecStart=/usr/sbin/logrotate -s /var/lib/containerd-logrotate.status ${CONTAINERD_PATH.logrotateConfig}`,
  '[Install]',
  'WantedBy=multi-user.target',
].join('\n');

const LOGROTATE_TIMER = [
  '[Unit]',
  'Description=Log Rotation at each 10 minutes',
  '[Timer]',
  'OnCalendar=*:0/10',
  'AccuracySec=1min',
  'Persistent=true',
  '[Install]',
  'WantedBy=multi-user.target',
].join('\n');

const MONITOR_SERVICE = [
  '[Unit]',
  'Description=Containerd-monitor daemon',
  'After=containerd.service',
  '[Install]',
  'WantedBy=multi-user.target',
  '[Service]',
  'Restart=always',
  'EnvironmentFile=/etc/environment',
  `ExecStart=${CONTAINERD_PATH.healthMonitor}`,
].join('\n');

export const containerd: Component = () => ({
  units: [
    // The timer starts the service; the service itself has no command (upstream sets none).
    {
      name: CONTAINERD_UNIT.logrotate,
      enable: true,
      content: LOGROTATE_SERVICE,
      filePaths: [CONTAINERD_PATH.logrotateConfig],
    },
    { name: CONTAINERD_UNIT.logrotateTimer, command: 'start', enable: true, content: LOGROTATE_TIMER },
    {
      name: CONTAINERD_UNIT.monitor,
      command: 'start',
      enable: true,
      content: MONITOR_SERVICE,
      filePaths: [CONTAINERD_PATH.healthMonitor],
    },
  ],
  files: [
    { path: CONTAINERD_PATH.logrotateConfig, permissions: MODE.rw, content: plain(LOGROTATE_CONFIG) },
    {
      path: CONTAINERD_PATH.healthMonitor,
      permissions: MODE.rwx,
      content: b64(healthMonitorContainerdScript()),
    },
  ],
});
