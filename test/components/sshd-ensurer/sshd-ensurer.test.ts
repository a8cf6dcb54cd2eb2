import { expect } from 'chai';
import { sshdEnsurer } from '../../../components/sshd-ensurer/sshd-ensurer.js';
import { componentContext, contentOf, expectComponentGolden } from '../support.js';

const SCRIPT = '/var/lib/sshd-ensurer/run.sh';

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/original/components/sshdensurer/component.go.
describe('components/sshd-ensurer', () => {
  const enabled = sshdEnsurer(componentContext({ sshAccessEnabled: true }));
  const disabled = sshdEnsurer(componentContext({ sshAccessEnabled: false }));

  it('renders sshd-ensurer.service: start, no enable, the script as filePath', () => {
    const unit = {
      name: 'sshd-ensurer.service',
      command: 'start',
      content:
        '[Unit]\nDescription=Ensure SSHD service is enabled or disabled\nDefaultDependencies=no\n[Service]\nType=simple\nRestart=always\nRestartSec=15\nExecStart=/var/lib/sshd-ensurer/run.sh\n[Install]\nWantedBy=multi-user.target',
      filePaths: [SCRIPT],
    };
    expect(enabled.units).to.deep.equal([unit]);
    expect(disabled.units).to.deep.equal([unit]);
  });

  it('writes run.sh executable and base64-encoded', () => {
    for (const out of [enabled, disabled]) {
      expect(out.files.map((f) => [f.path, f.permissions, f.content.inline?.encoding])).to.deep.equal([
        [SCRIPT, 493, 'b64'],
      ]);
    }
  });

  it('enables sshd (falling back to ssh.service) and starts it when SSH access is on', () => {
    const script = contentOf(enabled.files[0]!);
    expect(script).to.include('systemctl enable sshd.service');
    expect(script).to.include('systemctl enable ssh.service');
    expect(script).to.include('systemctl start sshd.service');
    expect(script).not.to.include('pkill');
    // As upstream's script: an operator's mask is respected.
    expect(script).not.to.include('unmask');
  });

  it('disables and stops sshd and ends running sessions when SSH access is off', () => {
    const script = contentOf(disabled.files[0]!);
    expect(script).to.include('systemctl disable sshd.service');
    expect(script).to.include('systemctl stop sshd.service');
    expect(script).to.include('pkill -x sshd || true');
    expect(script).not.to.include('systemctl start');
  });

  it('is the same with and without the node agent', () => {
    expect(sshdEnsurer(componentContext({ useGardenerNodeAgent: false }))).to.deep.equal(enabled);
  });

  it('matches the golden files', () => {
    expectComponentGolden('sshd-ensurer-enabled', enabled);
    expectComponentGolden('sshd-ensurer-disabled', disabled);
  });
});
