import { join } from 'node:path';
import { expect } from 'chai';
import { SystemctlSystemd } from '../../../node-agent/systemd/systemctl-systemd.js';
import { fakeSystemctl } from '../support/fake-systemctl.js';
import { useTempDirs } from '../support/harness.js';

describe('node-agent disruption: a Reload through systemctl', () => {
  const tempDir = useTempDirs();

  it('is reload-or-restart: a running unit reloads, one not running starts with its change', async () => {
    const fake = fakeSystemctl(tempDir());
    const systemd = new SystemctlSystemd({ systemctl: join(fake.binDir, 'systemctl') });
    await systemd.reload('valitail.service');
    expect(fake.calls()).to.deep.equal(['--job-mode=replace reload-or-restart -- valitail.service']);
  });
});
