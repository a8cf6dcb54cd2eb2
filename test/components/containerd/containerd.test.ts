import { expect } from 'chai';
import { containerd } from '../../../components/containerd/containerd.js';
import { componentContext, contentOf, expectComponentGolden, fileAt } from '../support.js';

const LOGROTATE_CONFIG = '/etc/systemd/containerd.conf';
const MONITOR = '/opt/bin/health-monitor-containerd';

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/original/components/containerd/component.go
// (S-TV-17).
describe('components/containerd', () => {
  const out = containerd(componentContext());

  it('renders logrotate service and timer and the monitor, in that order', () => {
    expect(out.units).to.deep.equal([
      {
        name: 'containerd-logrotate.service',
        enable: true,
        content:
          '[Unit]\nDescription=Rotate and Compress System Logs\n[Service]\nExecStart=/usr/sbin/logrotate -s /var/lib/containerd-logrotate.status /etc/systemd/containerd.conf\n[Install]\nWantedBy=multi-user.target',
        filePaths: [LOGROTATE_CONFIG],
      },
      {
        name: 'containerd-logrotate.timer',
        command: 'start',
        enable: true,
        content:
          '[Unit]\nDescription=Log Rotation at each 10 minutes\n[Timer]\nOnCalendar=*:0/10\nAccuracySec=1min\nPersistent=true\n[Install]\nWantedBy=multi-user.target',
      },
      {
        name: 'containerd-monitor.service',
        command: 'start',
        enable: true,
        content:
          '[Unit]\nDescription=Containerd-monitor daemon\nAfter=containerd.service\n[Install]\nWantedBy=multi-user.target\n[Service]\nRestart=always\nEnvironmentFile=/etc/environment\nExecStart=/opt/bin/health-monitor-containerd',
        filePaths: [MONITOR],
      },
    ]);
  });

  it('writes the logrotate config as plain text', () => {
    expect(out.files.map((f) => f.path)).to.deep.equal([LOGROTATE_CONFIG, MONITOR]);
    expect(fileAt(out, LOGROTATE_CONFIG)).to.deep.equal({
      path: LOGROTATE_CONFIG,
      permissions: 420,
      content: {
        inline: {
          encoding: '',
          data: '/var/log/pods/*/*/*.log {\n    rotate 14\n    copytruncate\n    missingok\n    notifempty\n    compress\n    daily\n    dateext\n    dateformat -%Y%m%d-%s\n    create 0644 root root\n}\n',
        },
      },
    });
  });

  it('writes the health monitor base64-encoded and executable', () => {
    const monitor = fileAt(out, MONITOR);
    expect(monitor.permissions).to.equal(493);
    expect(monitor.content.inline?.encoding).to.equal('b64');
    const script = contentOf(monitor);
    expect(script).to.match(/^#!\/bin\/bash\n/);
    // probes every 10 s, acts after 60 s, SIGTERM, 20 s grace: the behaviour upstream describes
    for (const fragment of [
      'readonly interval_seconds=10',
      'readonly unreachable_limit_seconds=60',
      'readonly grace_seconds=20',
      'ctr containers list',
      'systemctl show --property MainPID --value containerd',
      'kill -s TERM "$pid"',
    ])
      expect(script).to.include(fragment);
  });

  it('is the same with and without the node agent', () => {
    expect(containerd(componentContext({ useGardenerNodeAgent: false }))).to.deep.equal(out);
  });

  it('matches the golden file', () => {
    expectComponentGolden('containerd', out);
  });
});
