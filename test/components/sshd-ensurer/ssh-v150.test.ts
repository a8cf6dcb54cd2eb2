/** gardener-user and sshd-ensurer in the Gardener v1.150.0 contract. */
import { expect } from 'chai';
import { gardenerUserV150 } from '../../../components/gardener-user/gardener-user-v150.js';
import {
  DISABLE_SSHD_SCRIPT_V150,
  ENABLE_SSHD_SCRIPT_V150,
  sshdEnsurerV150,
} from '../../../components/sshd-ensurer/sshd-ensurer-v150.js';
import { contentOf } from '../support.js';

describe('gardener-user and sshd-ensurer of the v1.150.0 contract', () => {
  it('adds gardener-user.path, which watches the authorized keys, after the service', () => {
    const out = gardenerUserV150({
      sshAccessEnabled: true,
      sshPublicKeys: ['ssh-ed25519 AAAA a', 'ssh-rsa BBBB b'],
    });
    expect(out.units.map((u) => [u.name, u.enable])).to.deep.equal([
      ['gardener-user.service', true],
      ['gardener-user.path', true],
    ]);
    expect(out.units[1]?.content).to.equal(
      '[Path]\nPathChanged=/var/lib/gardener-user-authorized-keys\n[Install]\nWantedBy=multi-user.target\n',
    );
    expect(out.units[1]).to.not.have.property('command');
    expect(out.files.map((f) => [f.path, f.permissions])).to.deep.equal([
      ['/var/lib/gardener-user-authorized-keys', 0o644],
      ['/var/lib/gardener-user/run.sh', 0o755],
    ]);
    expect(contentOf(out.files[0]!)).to.equal('ssh-ed25519 AAAA a\nssh-rsa BBBB b');
    expect(gardenerUserV150({ sshAccessEnabled: false, sshPublicKeys: ['k'] })).to.deep.equal({
      units: [],
      files: [],
    });
  });

  it('loops over sshd every 15 s and restarts after 5 s', () => {
    const on = sshdEnsurerV150({ sshAccessEnabled: true });
    const off = sshdEnsurerV150({ sshAccessEnabled: false });
    expect(on.units[0]?.content).to.contain('\nRestartSec=5\n');
    expect(on.units[0]).to.deep.include({
      name: 'sshd-ensurer.service',
      command: 'start',
      filePaths: ['/var/lib/sshd-ensurer/run.sh'],
    });
    expect(contentOf(on.files[0]!)).to.equal(ENABLE_SSHD_SCRIPT_V150);
    expect(contentOf(off.files[0]!)).to.equal(DISABLE_SSHD_SCRIPT_V150);
    expect(ENABLE_SSHD_SCRIPT_V150).to.contain('systemctl unmask sshd.service');
    expect(DISABLE_SSHD_SCRIPT_V150).to.contain('systemctl mask --now sshd.service');
    for (const script of [ENABLE_SSHD_SCRIPT_V150, DISABLE_SSHD_SCRIPT_V150])
      expect(script).to.match(/^while true; do$[\s\S]*^ {4}sleep 15\ndone\n$/m);
  });
});
