/** What remains of the containerd component in the Gardener v1.150.0 contract. */
import { expect } from 'chai';
import { containerdV150 } from '../../../components/containerd/containerd-v150.js';
import { expectComponentGoldenV150 } from '../v150-golden.js';

describe('containerd of the v1.150.0 contract', () => {
  const out = containerdV150();

  it('has no monitor and no initializer, only log rotation and the CA trigger', () => {
    expect(out.units.map((u) => u.name)).to.deep.equal([
      'containerd-logrotate.service',
      'containerd-logrotate.timer',
      'containerd.service',
    ]);
    expect(out.files.map((f) => f.path)).to.deep.equal(['/etc/systemd/containerd.conf']);
  });

  it('restarts containerd when the local root certificates change, without owning its unit', () => {
    expect(out.units[2]).to.deep.equal({
      name: 'containerd.service',
      filePaths: ['/var/lib/ca-certificates-local/ROOTcerts.crt'],
    });
  });

  it('rotates daily and deletes rotations older than 14 days', () => {
    expect(out.units[1]?.content).to.contain('OnCalendar=daily\n');
    expect(out.units[0]?.content).to.contain(
      `ExecStartPost=/bin/sh -c 'find /var/log/pods -name "*.log.*" -mtime +14 -delete 2>&1 || [ ! -d /var/log/pods ]'`,
    );
  });

  it('matches its golden', () => {
    expectComponentGoldenV150('containerd', out);
  });
});
