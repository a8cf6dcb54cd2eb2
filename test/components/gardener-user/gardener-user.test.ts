import { expect } from 'chai';
import { gardenerUser } from '../../../components/gardener-user/gardener-user.js';
import { componentContext, contentOf, expectComponentGolden, fileAt } from '../support.js';

const KEYS = '/var/lib/gardener-user-authorized-keys';
const SCRIPT = '/var/lib/gardener-user/run.sh';

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/original/components/gardeneruser/component.go.
describe('components/gardener-user', () => {
  const keys = ['ssh-ed25519 AAAAC3Nz first@example.com', 'ssh-rsa AAAAB3Nz second@example.com'];
  const out = gardenerUser(componentContext({ sshPublicKeys: keys }));

  it('renders gardener-user.service: enable, no command, no filePaths, trailing newline', () => {
    expect(out.units).to.deep.equal([
      {
        name: 'gardener-user.service',
        enable: true,
        content:
          '[Unit]\nDescription=Configure gardener user\nAfter=sshd.service\n[Service]\nRestart=on-failure\nEnvironmentFile=/etc/environment\nExecStart=/var/lib/gardener-user/run.sh\n',
      },
    ]);
  });

  it('writes the keys joined by newlines and the script, in that order', () => {
    expect(out.files.map((f) => [f.path, f.permissions, f.content.inline?.encoding])).to.deep.equal([
      [KEYS, 420, 'b64'],
      [SCRIPT, 493, 'b64'],
    ]);
    expect(fileAt(out, KEYS).content.inline?.data).to.equal(Buffer.from(keys.join('\n')).toString('base64'));
  });

  it('creates the user, installs the keys, removes the legacy key, grants sudo', () => {
    const script = contentOf(fileAt(out, SCRIPT));
    for (const fragment of [
      'readonly authorized_keys_source=/var/lib/gardener-user-authorized-keys\n',
      'readonly legacy_public_key=/var/lib/gardener-user-ssh.key\n',
      'useradd "$user" -mU',
      'readonly ssh_dir=/home/gardener/.ssh',
      '"$ssh_dir/authorized_keys"',
      'rm -f "$legacy_public_key"',
      'readonly sudoers_file=/etc/sudoers.d/99-gardener-user',
      'echo "$user ALL=(ALL) NOPASSWD:ALL"',
    ])
      expect(script).to.include(fragment);
  });

  it('renders nothing when SSH access is off', () => {
    expect(gardenerUser(componentContext({ sshAccessEnabled: false }))).to.deep.equal({
      units: [],
      files: [],
    });
  });

  it('is the same with and without the node agent', () => {
    expect(
      gardenerUser(componentContext({ sshPublicKeys: keys, useGardenerNodeAgent: false })),
    ).to.deep.equal(out);
  });

  it('matches the golden file', () => {
    expectComponentGolden('gardener-user', gardenerUser(componentContext()));
  });
});
