/** The provision OSC's units and files in the Gardener v1.150.0 contract. */
import { expect } from 'chai';
import { parseSemVer } from '../../api/index.js';
import { provisionContentsV150 } from '../../charts/operating-system-config/provision-contents-v150.js';
import { nodeInitComponentConfigV150 } from '../../components/node-agent/component-config-v150.js';
import { nodeInitV150 } from '../../components/node-init/node-init-v150.js';

const out = nodeInitV150({
  image: 'node-agent:v1.150.0',
  config: nodeInitComponentConfigV150({
    oscSecretName: 'k',
    kubernetesVersion: parseSemVer('1.34.1'),
    apiServerUrl: 'https://a',
  }),
  gitVersion: 'v1.150.0',
  clusterCaBundle: 'ca',
});

describe('provision OSC contents of the v1.150.0 contract', () => {
  it('is node init alone without SSH access, else node init, gardener-user and sshd-ensurer', () => {
    expect(provisionContentsV150(out, { sshAccessEnabled: false, sshPublicKeys: [] })).to.equal(out);
    const withSsh = provisionContentsV150(out, {
      sshAccessEnabled: true,
      sshPublicKeys: ['ssh-ed25519 AAAA a'],
    });
    expect(withSsh.units.map((u) => u.name)).to.deep.equal([
      'gardener-node-init.service',
      'gardener-user.service',
      'gardener-user.path',
      'sshd-ensurer.service',
    ]);
    expect(withSsh.files.map((f) => f.path).slice(5)).to.deep.equal([
      '/var/lib/gardener-user-authorized-keys',
      '/var/lib/gardener-user/run.sh',
      '/var/lib/sshd-ensurer/run.sh',
    ]);
  });
});
