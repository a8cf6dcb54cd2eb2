/** Node init of the v1.150.0 contract with a registry CA (gardener v1.150.0 nodeinit.go, v1.149.0 #15150). */
import { expect } from 'chai';
import { parseSemVer } from '../../../api/index.js';
import { nodeInitComponentConfigV150 } from '../../../components/node-agent/component-config-v150.js';
import { nodeInitScriptV150, nodeInitV150 } from '../../../components/node-init/node-init-v150.js';
import { contentOf, fileAt } from '../support.js';

const API_SERVER = 'https://api.bar.foo.internal.example.com';
const input = {
  image: 'europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.150.0',
  config: nodeInitComponentConfigV150({
    oscSecretName: 'gardener-node-agent-worker-a-1296c0b754ed56ec',
    kubernetesVersion: parseSemVer('1.34.1'),
    apiServerUrl: API_SERVER,
  }),
  gitVersion: 'v1.150.0' as const,
  clusterCaBundle: '-----BEGIN CERTIFICATE-----\nY2x1c3Rlci1jYQ==\n-----END CERTIFICATE-----\n',
};
const without = nodeInitV150(input);
const withCa = nodeInitV150({ ...input, registryCa: { apiServerUrl: API_SERVER } });

describe('node init of the v1.150.0 contract with a registry CA', () => {
  it('only wants containerd, since init.sh restarts it', () => {
    const unit = withCa.units[0]?.content ?? '';
    expect(unit).to.contain('\nWants=containerd.service\nAfter=containerd.service\n');
    expect(unit).not.to.contain('Requires=containerd.service');
    expect(without.units[0]?.content).to.contain('\nRequires=containerd.service\n');
  });

  it('adds update-local-ca-certificates.sh after the machine name, before the agent config', () => {
    expect(withCa.files.map((f) => f.path)).to.deep.equal([
      '/var/lib/gardener-node-agent/cluster-ca.crt',
      '/var/lib/gardener-node-agent/credentials/bootstrap-token',
      '/var/lib/gardener-node-agent/init.sh',
      '/var/lib/gardener-node-agent/machine-name',
      '/var/lib/ssl/update-local-ca-certificates.sh',
      '/var/lib/gardener-node-agent/config-v1.150.0.yaml',
    ]);
    expect(fileAt(withCa, '/var/lib/ssl/update-local-ca-certificates.sh').permissions).to.equal(0o744);
  });

  it('fetches the CA from the shoot with the bootstrap token before it pulls the agent', () => {
    const script = contentOf(fileAt(withCa, '/var/lib/gardener-node-agent/init.sh'));
    const fetch = script.indexOf(
      `"${API_SERVER}/api/v1/namespaces/kube-system/configmaps/registry-ca-bundle"`,
    );
    expect(fetch).to.be.greaterThan(0);
    expect(fetch).to.be.lessThan(script.indexOf('ctr images pull'));
    expect(script).to.contain(
      '--header "Authorization: Bearer $(cat "/var/lib/gardener-node-agent/credentials/bootstrap-token" 2>/dev/null)"',
    );
    expect(script).to.contain(
      `printf '%s' "$CA_B64" | base64 -d | tee "/var/lib/ca-certificates-local/registry-ca.crt" > "/etc/pki/trust/anchors/registry-ca.pem"`,
    );
    expect(script).to.contain('\n  systemctl restart containerd\n');
  });

  it('leaves init.sh as it was without a registry CA', () => {
    expect(contentOf(fileAt(without, '/var/lib/gardener-node-agent/init.sh'))).to.equal(
      nodeInitScriptV150(input.image),
    );
    expect(nodeInitScriptV150(input.image)).not.to.contain('registry-ca-bundle');
  });
});
