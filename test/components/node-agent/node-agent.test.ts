import { expect } from 'chai';
import { NODE_AGENT_UNIT_CONTENT, parseSemVer, sha256Hex } from '../../../api/index.js';
import { downloader } from '../../../components/downloader/downloader.js';
import { nodeAgentComponentConfig } from '../../../components/node-agent/component-config.js';
import { nodeAgent } from '../../../components/node-agent/node-agent.js';
import {
  kubeletDataVolumeSize,
  NODE_INIT_UNIT_CONTENT,
  nodeInit,
} from '../../../components/node-init/node-init.js';
import { quantityAsInt64 } from '../../../components/node-init/quantity.js';
import {
  componentContext,
  contentOf,
  expectComponentGolden,
  fileAt,
  scriptsOf,
  shellcheck,
  unitNamed,
} from '../support.js';

const s11Config = () =>
  nodeAgentComponentConfig({
    oscSecretName: 'osc-secret-name',
    kubernetesVersion: parseSemVer('1.2.3'),
    apiServerUrl: 'https://localhost',
    caBundle: 'cluster-ca',
    syncJitterPeriod: 1e9,
    identity: 'serviceAccount',
  });

// Upstream: gardener v1.91.4 pkg/component/extensions/operatingsystemconfig/nodeinit/nodeinit.go,
// pkg/component/extensions/operatingsystemconfig/downloader/downloader.go,
// pkg/component/extensions/operatingsystemconfig/executor/executor.go,
// pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/component.go.
describe('node agent, node init and downloader components', () => {
  it('S-TV-12: the node agent unit, config and binary', () => {
    const out = nodeAgent(
      componentContext({
        key: 'key',
        kubernetesVersion: parseSemVer('1.2.3'),
        apiServerUrl: 'https://localhost',
        caBundle: 'ca-bundle',
        images: { 'gardener-node-agent': 'gardener-node-agent:v1' },
        syncJitterPeriod: 1e9,
        valitailEnabled: false,
      }),
    );
    expect(out.units).to.deep.equal([
      {
        name: 'gardener-node-agent.service',
        enable: true,
        content: NODE_AGENT_UNIT_CONTENT,
        filePaths: ['/var/lib/gardener-node-agent/config.yaml', '/opt/bin/gardener-node-agent'],
      },
    ]);
    expect(out.files[1]).to.deep.equal({
      path: '/opt/bin/gardener-node-agent',
      permissions: 0o755,
      content: { imageRef: { image: 'gardener-node-agent:v1', filePathInImage: '/gardener-node-agent' } },
    });
    const config = contentOf(fileAt(out, '/var/lib/gardener-node-agent/config.yaml'));
    expect(out.files[0]!.permissions).to.equal(0o600);
    expect(config)
      .to.contain('secretName: key\n')
      .and.to.contain('kubernetesVersion: 1.2.3\n')
      .and.to.contain('caBundle: Y2EtYnVuZGxl\n');
    expect(config).not.to.contain('gardener-valitail');
  });

  it('adds the valitail token sync when node logging is on, and nothing with the gate off', () => {
    expect(contentOf(nodeAgent(componentContext()).files[0]!)).to.contain('secretName: gardener-valitail');
    expect(nodeAgent(componentContext({ useGardenerNodeAgent: false }))).to.deep.equal({
      units: [],
      files: [],
    });
  });

  it('with per-node identities names the identity kubeconfig and syncs no token of its own', () => {
    const text = (identity: 'node' | 'serviceAccount', valitailEnabled: boolean) =>
      contentOf(nodeAgent(componentContext({ nodeAgentIdentity: identity, valitailEnabled })).files[0]!);
    const perNode = text('node', true);
    expect(perNode).to.contain('kubeconfig: /var/lib/gardener-node-agent/credentials/kubeconfig\n');
    expect(perNode)
      .to.contain('secretName: gardener-valitail')
      .and.not.to.contain('secretName: gardener-node-agent\n');
    expect(perNode).not.to.contain('/var/lib/gardener-node-agent/credentials/token');
    // without valitail there is nothing to sync: the list is left out, as Go's omitempty does
    expect(text('node', false)).not.to.contain('syncConfigs');
    const shared = text('serviceAccount', true);
    expect(shared).to.contain('kubeconfig: ""\n').and.to.contain('secretName: gardener-node-agent\n');
  });

  it('S-TV-11: node init unit and files, the provision config with bootstrap section', () => {
    const out = nodeInit({ name: 'w' }, 'gna-repo:gna-tag', s11Config());
    expect(unitNamed(out, 'gardener-node-init.service')).to.deep.equal({
      name: 'gardener-node-init.service',
      command: 'start',
      enable: true,
      content: NODE_INIT_UNIT_CONTENT,
      filePaths: ['/var/lib/gardener-node-agent/init.sh'],
    });
    expect(out.files[0]).to.deep.equal({
      path: '/var/lib/gardener-node-agent/credentials/bootstrap-token',
      permissions: 0o640,
      content: { inline: { encoding: '', data: '<<BOOTSTRAP_TOKEN>>' }, transmitUnencoded: true },
    });
    expect(out.files[1]).to.include({ path: '/var/lib/gardener-node-agent/init.sh', permissions: 0o755 });
    const config = contentOf(out.files[2]!);
    expect(out.files[2]!.permissions).to.equal(0o600);
    expect(Buffer.byteLength(config)).to.equal(571);
    expect(sha256Hex(config)).to.equal('de59af6861e7f8f3df729462de8b3da591bb62592a64570b99c97737f73ce7c1');
  });

  it('S-TV-11: with a kubelet data volume of 1337Ki, and an unknown volume name', () => {
    const worker = {
      name: 'w',
      dataVolumes: [{ name: 'kubelet-data-vol', size: '1337Ki' }],
      kubeletDataVolumeName: 'kubelet-data-vol',
    };
    const config = contentOf(nodeInit(worker, 'gna-repo:gna-tag', s11Config()).files[2]!);
    expect(config).to.contain('bootstrap:\n  kubeletDataVolumeSize: 1369088\n');
    expect(sha256Hex(config)).to.equal('5d6305864768f88e615ff2279564690d09a06e675c6d340aa3db69c20aab4131');
    expect(() => kubeletDataVolumeSize({ ...worker, kubeletDataVolumeName: 'other' })).to.throw(
      'failed finding data volume for kubelet in worker with name "w"',
    );
    expect(() =>
      kubeletDataVolumeSize({ ...worker, dataVolumes: [{ name: 'kubelet-data-vol', size: 'lots' }] }),
    ).to.throw(/failed parsing kubelet data volume size "lots" as quantity/);
  });

  it('reads quantities as resource.Quantity.AsInt64 does', () => {
    expect(quantityAsInt64('1337Ki')).to.equal(1369088);
    expect(quantityAsInt64('50Gi')).to.equal(50 * 1024 ** 3);
    expect(quantityAsInt64('100G')).to.equal(100e9);
    expect(quantityAsInt64('1e3')).to.equal(1000);
    expect(quantityAsInt64('1.5')).to.equal(undefined);
    expect(quantityAsInt64('1500m')).to.equal(undefined);
    expect(quantityAsInt64('2000m')).to.equal(2);
  });

  it('the init script pulls with ctr, installs the binary, unmounts before handing over to bootstrap', () => {
    const script = contentOf(
      nodeInit({ name: 'w' }, "registry.example.com/gna:v1.2.3+build'x", s11Config()).files[1]!,
    );
    expect(script).to.contain(`image='registry.example.com/gna:v1.2.3+build'"'"'x'`);
    expect(script).to.contain('ctr images pull "$image" --hosts-dir "/etc/containerd/certs.d"');
    expect(script.indexOf('\nunmount\n')).to.be.lessThan(
      script.indexOf('exec "$binary_directory/gardener-node-agent" bootstrap'),
    );
    expect(script).to.contain('bootstrap --config="$config_file"');
    expect(shellcheck(script)).to.deep.equal([]);
  });

  it('the legacy downloader: unit, credentials, CA by secret reference, script', () => {
    const out = downloader('cloud-config-pool-77ac3', 'https://api.example.com', 'ca-bundle');
    expect(out.units.map((u) => [u.name, u.command, u.enable])).to.deep.equal([
      ['cloud-config-downloader.service', 'start', true],
    ]);
    expect(out.files.map((f) => [f.path, f.permissions])).to.deep.equal([
      ['/var/lib/cloud-config-downloader/credentials/server', 0o644],
      ['/var/lib/cloud-config-downloader/credentials/ca.crt', 0o644],
      ['/var/lib/cloud-config-downloader/download-cloud-config.sh', 0o744],
      ['/var/lib/cloud-config-downloader/credentials/bootstrap-token', 0o644],
    ]);
    expect(out.files[1]!.content).to.deep.equal({ secretRef: { name: 'ca-bundle', dataKey: 'bundle.crt' } });
    for (const [path, script] of scriptsOf(out)) expect(shellcheck(script), path).to.deep.equal([]);
  });

  it('matches the reviewed golden files', () => {
    expectComponentGolden('node-agent', nodeAgent(componentContext()));
    expectComponentGolden('node-init', nodeInit({ name: 'w' }, 'gna-repo:gna-tag', s11Config()));
    expectComponentGolden(
      'downloader',
      downloader('cloud-config-pool-77ac3', 'https://api.example.com', 'ca-bundle'),
    );
  });
});
