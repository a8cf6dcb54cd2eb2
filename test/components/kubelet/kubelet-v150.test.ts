/** The kubelet component and its configuration in the Gardener v1.150.0 contract. */
import { expect } from 'chai';
import { parseSemVer, parseYaml, stringifyYaml } from '../../../api/index.js';
import { kubeletConfiguration } from '../../../components/kubelet/kubelet-configuration.js';
import {
  KUBELET_TLS_CIPHER_SUITES,
  type KubeletConfigurationV150Input,
  kubeletConfigurationV150,
} from '../../../components/kubelet/kubelet-configuration-v150.js';
import { kubeletHttp2Timeouts, kubeletV150 } from '../../../components/kubelet/kubelet-v150.js';
import { expectGolden } from '../../golden.js';
import { CA_BUNDLE, contentOf } from '../support.js';

const VERSION = parseSemVer('1.34.1');
const configInput = (over: Partial<KubeletConfigurationV150Input> = {}): KubeletConfigurationV150Input => ({
  params: {},
  clusterDnsAddresses: ['100.64.0.10'],
  clusterDomain: 'cluster.local',
  taints: [],
  kubernetesVersion: VERSION,
  ...over,
});

const out = kubeletV150({
  ...configInput({
    params: { maxPods: 64, evictionHard: { 'memory.available': '500Mi' }, maxParallelImagePulls: 5 },
    clusterDnsAddresses: ['100.64.0.10', 'fd00::a'],
    taints: [{ key: 'nvidia.com/gpu', effect: 'NoSchedule' }],
  }),
  criName: 'containerd',
  nodeLabels: { 'worker.gardener.cloud/pool': 'gpu', 'node-role.kubernetes.io/gpu': 'true' },
  preferIPv6: false,
  kubeletCaBundle: CA_BUNDLE,
  hyperkubeImage: 'europe-docker.pkg.dev/gardener-project/releases/hyperkube:v1.34.1',
  nodeMonitorGracePeriodSeconds: 40,
});

describe('kubelet of the v1.150.0 contract', () => {
  it('derives the HTTP/2 timeouts from the node monitor grace period as calcKubeletHTTP2Timeouts', () => {
    expect(kubeletHttp2Timeouts(40)).to.deep.equal({ readIdle: 25, ping: 12 });
    expect(kubeletHttp2Timeouts(45.9)).to.deep.equal({ readIdle: 29, ping: 14 });
    expect(kubeletHttp2Timeouts(46)).to.deep.equal({ readIdle: 30, ping: 15 });
    expect(kubeletHttp2Timeouts(300)).to.deep.equal({ readIdle: 30, ping: 15 });
    expect(kubeletHttp2Timeouts(1)).to.deep.equal({ readIdle: 0, ping: 0 });
  });

  it('adds to the v1.91.4 configuration only what v1.150.0 changed', () => {
    const old = kubeletConfiguration({
      params: {},
      clusterDnsAddress: '100.64.0.10',
      clusterDomain: 'cluster.local',
      kubernetesVersion: VERSION,
    });
    const now = kubeletConfigurationV150(configInput());
    const changed = Object.keys({ ...old, ...now }).filter(
      (k) => JSON.stringify(old[k]) !== JSON.stringify(now[k]),
    );
    expect(changed.sort()).to.deep.equal(['cgroupDriver', 'crashLoopBackOff', 'logging', 'tlsCipherSuites']);
    expect(now.cgroupDriver).to.equal('systemd');
    expect(now.tlsCipherSuites).to.deep.equal([...KUBELET_TLS_CIPHER_SUITES]);
  });

  it('writes systemd as cgroup driver even where v1.91.4 left it to the CRI', () => {
    const params = { featureGates: { KubeletCgroupDriverFromCRI: true } };
    expect(kubeletConfigurationV150(configInput({ params })).cgroupDriver).to.equal('systemd');
  });

  it('protects kernel defaults unless the shoot says false, which Go then omits', () => {
    expect(kubeletConfigurationV150(configInput()).protectKernelDefaults).to.equal(true);
    const off = kubeletConfigurationV150(configInput({ params: { protectKernelDefaults: false } }));
    expect(stringifyYaml(off)).not.to.contain('protectKernelDefaults');
  });

  it("puts the pool's taints before the critical-components taint", () => {
    const config = kubeletConfigurationV150(
      configInput({ taints: [{ key: 'a', value: 'b', effect: 'NoExecute' }] }),
    );
    expect(config.registerWithTaints).to.deep.equal([
      { effect: 'NoExecute', key: 'a', value: 'b' },
      { effect: 'NoSchedule', key: 'node.gardener.cloud/critical-components-not-ready' },
    ]);
  });

  it('passes the newer shoot fields through and omits them when unset', () => {
    const set = kubeletConfigurationV150(
      configInput({
        params: {
          maxParallelImagePulls: 0,
          singleProcessOOMKill: false,
          imagePullCredentialsVerificationPolicy: 'NeverVerify',
          preloadedImagesVerificationAllowlist: ['registry.example/*'],
          withStaticPodPath: true,
        },
      }),
    );
    expect(set).to.include({
      maxParallelImagePulls: 0,
      singleProcessOOMKill: false,
      imagePullCredentialsVerificationPolicy: 'NeverVerify',
      staticPodPath: '/etc/kubernetes/manifests',
    });
    expect(set.preloadedImagesVerificationAllowlist).to.deep.equal(['registry.example/*']);
    const unset = stringifyYaml(kubeletConfigurationV150(configInput()));
    for (const key of [
      'maxParallelImagePulls',
      'singleProcessOOMKill',
      'imagePull',
      'preloaded',
      'staticPodPath',
    ])
      expect(unset).not.to.contain(key);
  });

  it('writes the config 0600, lists the local root certificates among the unit files', () => {
    expect(out.files.map((f) => [f.path, f.permissions])).to.deep.equal([
      ['/var/lib/kubelet/ca.crt', 0o644],
      ['/var/lib/kubelet/config/kubelet', 0o600],
      ['/opt/bin/kubelet', 0o755],
    ]);
    expect(out.units[0]?.filePaths).to.deep.equal([
      '/var/lib/kubelet/ca.crt',
      '/var/lib/kubelet/config/kubelet',
      '/opt/bin/kubelet',
      '/var/lib/ca-certificates-local/ROOTcerts.crt',
    ]);
    const config = parseYaml(contentOf(out.files[1]!)) as { clusterDNS: string[] };
    expect(config.clusterDNS).to.deep.equal(['100.64.0.10', 'fd00::a']);
  });

  it('matches its golden (decoded view)', () => {
    const decoded = Object.fromEntries(
      out.files.filter((f) => f.content.inline?.encoding === 'b64').map((f) => [f.path, contentOf(f)]),
    );
    expectGolden(
      'render-v1.150/components/kubelet.yaml',
      `${stringifyYaml({ units: out.units, files: out.files })}---\n${stringifyYaml({ decoded })}`,
    );
  });
});
