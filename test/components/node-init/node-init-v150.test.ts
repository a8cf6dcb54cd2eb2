/** The provision OSC's node init in the Gardener v1.150.0 contract. */
import { expect } from 'chai';
import { parseSemVer, stringifyYaml } from '../../../api/index.js';
import { nodeInitComponentConfigV150 } from '../../../components/node-agent/component-config-v150.js';
import {
  NODE_INIT_UNIT_CONTENT_V150,
  nodeInitScriptV150,
  nodeInitV150,
} from '../../../components/node-init/node-init-v150.js';
import { expectGolden } from '../../golden.js';
import { contentOf } from '../support.js';

const IMAGE = 'europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.150.0';

const out = nodeInitV150({
  image: IMAGE,
  config: nodeInitComponentConfigV150({
    oscSecretName: 'gardener-node-agent-worker-a-1296c0b754ed56ec',
    kubernetesVersion: parseSemVer('1.34.1'),
    apiServerUrl: 'https://api.bar.foo.internal.example.com',
  }),
  gitVersion: 'v1.150.0',
  clusterCaBundle: '-----BEGIN CERTIFICATE-----\nY2x1c3Rlci1jYQ==\n-----END CERTIFICATE-----\n',
});

describe('node init of the v1.150.0 contract', () => {
  it('ships the cluster CA, the bootstrap token, init.sh, the machine name and the agent config, in that order', () => {
    expect(out.files.map((f) => [f.path, f.permissions])).to.deep.equal([
      ['/var/lib/gardener-node-agent/cluster-ca.crt', 0o640],
      ['/var/lib/gardener-node-agent/credentials/bootstrap-token', 0o640],
      ['/var/lib/gardener-node-agent/init.sh', 0o755],
      ['/var/lib/gardener-node-agent/machine-name', 0o640],
      ['/var/lib/gardener-node-agent/config-v1.150.0.yaml', 0o600],
    ]);
    expect(out.files[1]?.content).to.deep.equal({
      inline: { encoding: '', data: '<<BOOTSTRAP_TOKEN>>' },
      transmitUnencoded: true,
    });
    expect(out.files[3]?.content).to.deep.equal({
      inline: { encoding: '', data: '<<MACHINE_NAME>>' },
      transmitUnencoded: true,
    });
    expect(contentOf(out.files[4]!)).to.match(/^bootstrap: \{\}$/m);
  });

  it('starts gardener-node-init.service after containerd, which it requires, logging to the console', () => {
    expect(out.units).to.deep.equal([
      {
        name: 'gardener-node-init.service',
        command: 'start',
        enable: true,
        content: NODE_INIT_UNIT_CONTENT_V150,
        filePaths: ['/var/lib/gardener-node-agent/init.sh'],
      },
    ]);
    expect(NODE_INIT_UNIT_CONTENT_V150).to.contain('Requires=containerd.service\nAfter=containerd.service\n');
    expect(NODE_INIT_UNIT_CONTENT_V150).to.contain(
      'StandardOutput=journal+console\nStandardError=journal+console\n',
    );
  });

  it("writes init.sh as Go's text/template executes init.tpl.sh (no escaping of the image)", () => {
    const script = nodeInitScriptV150('registry.example/na:v1&"x"');
    expect(script).to.contain('image="registry.example/na:v1&"x""\n');
    expect(script).to.contain('CTR_EXTRA_ARGS="--skip-metadata"');
    expect(script).to.contain(
      'cp -f "$tmp_dir/gardener-node-agent" "/opt/bin" || cp -f "$tmp_dir/ko-app/gardener-node-agent" "/opt/bin"\n',
    );
    expect(
      script.endsWith(
        'exec "/opt/bin/gardener-node-agent" bootstrap --config-dir="/var/lib/gardener-node-agent"\n',
      ),
    ).to.equal(true);
  });

  it("matches its golden (decoded view; init.sh reviewed against Go 1.26.8 executing upstream's template)", () => {
    const decoded = Object.fromEntries(
      out.files.filter((f) => f.content.inline?.encoding === 'b64').map((f) => [f.path, contentOf(f)]),
    );
    expectGolden(
      'render-v1.150/components/node-init.yaml',
      `${stringifyYaml({ units: out.units, files: out.files })}---\n${stringifyYaml({ decoded })}`,
    );
  });
});
