import { expect } from 'chai';
import { parseSemVer, sha256Hex, stringifyYaml } from '../../../api/index.js';
import { kubeletCliFlags } from '../../../components/kubelet/cli-flags.js';
import { kubelet } from '../../../components/kubelet/kubelet.js';
import { kubeletConfiguration } from '../../../components/kubelet/kubelet-configuration.js';
import { isAllowedForKubelet } from '../../../components/kubelet/kubelet-labels.js';
import {
  componentContext,
  contentOf,
  expectComponentGolden,
  fileAt,
  scriptsOf,
  shellcheck,
  unitNamed,
} from '../support.js';

const S_TV_13_LABELS = {
  test: 'foo',
  test2: 'bar',
  'kubernetes.io/arch': 'amd64',
  'k8s.io/foo': 'bar',
  'bar.k8s.io/foo': 'bar',
  'node-role.kubernetes.io/default': 'worker',
  'worker.gardener.cloud/pool': 'worker',
  'containerruntime.worker.gardener.cloud/gvisor': 'true',
};

const flags = (version: string, preferIPv6 = false) =>
  kubeletCliFlags({
    kubernetesVersion: parseSemVer(version),
    criName: 'containerd',
    nodeLabels: S_TV_13_LABELS,
    preferIPv6,
  });

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/original/components/kubelet/component.go.
describe('kubelet component', () => {
  it('S-TV-13: CLI flags for 1.26.6, in gardenlet order', () => {
    expect(flags('1.26.6')).to.deep.equal([
      '--bootstrap-kubeconfig=/var/lib/kubelet/kubeconfig-bootstrap',
      '--config=/var/lib/kubelet/config/kubelet',
      '--kubeconfig=/var/lib/kubelet/kubeconfig-real',
      '--node-labels=worker.gardener.cloud/kubernetes-version=1.26.6',
      '--node-labels=containerruntime.worker.gardener.cloud/gvisor=true',
      '--node-labels=kubernetes.io/arch=amd64',
      // sorted by the whole flag in byte order, as sort.Strings does: '2' < '='
      '--node-labels=test2=bar',
      '--node-labels=test=foo',
      '--node-labels=worker.gardener.cloud/pool=worker',
      '--container-runtime-endpoint=unix:///run/containerd/containerd.sock',
      '--runtime-cgroups=/system.slice/containerd.service',
      '--container-runtime=remote',
      '--v=2',
    ]);
  });

  it('S-TV-13: 1.27.0 drops --container-runtime; IPv6 adds --node-ip="::"', () => {
    expect(flags('1.27.0')).not.to.include('--container-runtime=remote');
    expect(flags('1.27.0', true).at(-1)).to.equal('--node-ip="::"');
    expect(flags('1.34.1')).to.deep.equal(flags('1.27.0').map((f) => f.replace('1.27.0', '1.34.1')));
  });

  it('lets the kubelet set only labels it may set on itself', () => {
    expect(isAllowedForKubelet('kubernetes.io/arch')).to.equal(true);
    expect(isAllowedForKubelet('node.kubernetes.io/role')).to.equal(true);
    expect(isAllowedForKubelet('foo.kubelet.kubernetes.io/x')).to.equal(true);
    expect(isAllowedForKubelet('node-role.kubernetes.io/default')).to.equal(false);
    expect(isAllowedForKubelet('node-restriction.kubernetes.io/x')).to.equal(false);
    expect(isAllowedForKubelet('bar.k8s.io/foo')).to.equal(false);
    expect(isAllowedForKubelet('example.com/x')).to.equal(true);
  });

  it('S-TV-14: unit, filePaths and the binary from the hyperkube image', () => {
    const out = kubelet(componentContext({ images: { hyperkube: 'hyperkube.io:v4.5.6' } }));
    const unit = unitNamed(out, 'kubelet.service');
    expect(unit).to.include({ command: 'start', enable: true });
    expect(unit.filePaths).to.deep.equal([
      '/var/lib/kubelet/ca.crt',
      '/var/lib/kubelet/config/kubelet',
      '/opt/bin/kubelet',
    ]);
    expect(fileAt(out, '/opt/bin/kubelet')).to.deep.equal({
      path: '/opt/bin/kubelet',
      permissions: 0o755,
      content: { imageRef: { image: 'hyperkube.io:v4.5.6', filePathInImage: '/kubelet' } },
    });
    expect(unit.content).to.match(/^\[Unit\]\nDescription=kubelet daemon\n/);
    expect(unit.content).to.match(
      /\nExecStart=\/opt\/bin\/kubelet \\\n {4}--bootstrap-kubeconfig=[^\n]+ \\\n {4}--config=/,
    );
    expect(unit.content).to.match(/ --v=2 \$KUBELET_EXTRA_ARGS$/);
  });

  it('S-TV-16: the config file for 1.25 and 1.26 has the bytes gardenlet writes', () => {
    const config = (v: string) =>
      stringifyYaml(
        kubeletConfiguration({
          params: {},
          clusterDnsAddress: '',
          clusterDomain: '',
          kubernetesVersion: parseSemVer(v),
        }),
      );
    const v125 = config('1.25.1');
    expect(v125.length).to.equal(2222);
    expect(sha256Hex(v125)).to.equal('c21f7e67d55ee5b6bb4e1c3772fc98f751a85ab7496c6df1a81d93a8814c6ee5');
    const v126 = config('1.26.1');
    expect(v126).to.contain('nodeStatusUpdateFrequency: 0s\nprotectKernelDefaults: true\n');
    expect(v126).to.contain('streamingConnectionIdleTimeout: 5m0s\n');
    expect(sha256Hex(v126)).to.equal('a1b1dbf0cd9a01778d597716b96a05445d7011b686e061c14f0f44eea955f3bb');
  });

  it('S-TV-16: user parameters win, defaults fill the rest; the CRI cgroup driver gate empties cgroupDriver', () => {
    const c = kubeletConfiguration({
      params: {
        containerLogMaxSize: '123Mi',
        cpuCFSQuota: false,
        cpuManagerPolicy: 'policy',
        evictionHard: { 'memory.available': '123' },
        kubeReserved: { cpu: '123' },
        maxPods: 24,
        memorySwap: { swapBehavior: 'UnlimitedSwap' },
        podPidsLimit: 101,
        systemReserved: { memory: '321' },
        streamingConnectionIdleTimeout: '12m',
        registryPullQPS: 10,
        registryBurst: 20,
      },
      clusterDnsAddress: '10.0.0.10',
      clusterDomain: 'cluster.local',
      kubernetesVersion: parseSemVer('1.30.0'),
    });
    expect(c).to.deep.include({
      containerLogMaxSize: '123Mi',
      cpuCFSQuota: false,
      cpuManagerPolicy: 'policy',
      maxPods: 24,
      memorySwap: { swapBehavior: 'UnlimitedSwap' },
      podPidsLimit: 101,
      systemReserved: { memory: '321' },
      streamingConnectionIdleTimeout: '12m0s',
      registryPullQPS: 10,
      registryBurst: 20,
      clusterDNS: ['10.0.0.10'],
      clusterDomain: 'cluster.local',
    });
    expect(c.kubeReserved).to.deep.equal({ cpu: '123', memory: '1Gi' });
    expect((c.evictionHard as Record<string, string>)['memory.available']).to.equal('123');
    expect((c.evictionHard as Record<string, string>)['nodefs.available']).to.equal('5%');
    const gated = kubeletConfiguration({
      params: { featureGates: { KubeletCgroupDriverFromCRI: true } },
      clusterDnsAddress: '',
      clusterDomain: '',
      kubernetesVersion: parseSemVer('1.30.0'),
    });
    expect(gated.cgroupDriver).to.equal(undefined);
    expect(stringifyYaml(gated)).not.to.contain('cgroupDriver');
  });

  it('gate off: the legacy monitor unit and copy-binary ExecStartPre, no binary file', () => {
    const out = kubelet(componentContext({ useGardenerNodeAgent: false }));
    expect(out.units.map((u) => u.name)).to.deep.equal(['kubelet-monitor.service', 'kubelet.service']);
    expect(out.files.map((f) => f.path)).to.deep.equal([
      '/opt/bin/health-monitor-kubelet',
      '/var/lib/kubelet/ca.crt',
      '/var/lib/kubelet/config/kubelet',
    ]);
    expect(unitNamed(out, 'kubelet.service').content).to.contain(
      'EnvironmentFile=-/var/lib/kubelet/extra_args\nExecStartPre=/var/lib/kubelet/copy-kubernetes-binary.sh kubelet\nExecStart=',
    );
    expect(unitNamed(out, 'kubelet.service').filePaths).to.deep.equal([
      '/var/lib/kubelet/ca.crt',
      '/var/lib/kubelet/config/kubelet',
    ]);
    for (const [path, script] of scriptsOf(out)) expect(shellcheck(script), path).to.deep.equal([]);
  });

  it("gate off: the monitor does upstream's job: start-up grace, healthz restarts, InternalIP re-patch, no reboot", () => {
    const out = kubelet(componentContext({ useGardenerNodeAgent: false }));
    const script = contentOf(fileAt(out, '/opt/bin/health-monitor-kubelet'));
    expect(script).to.contain('echo "Wait for 2 minutes for kubelet to be functional"\nsleep 120\n');
    expect(script).to.contain('if ! output="$(curl -m 10 -fsS "$healthz_url" 2>&1)"; then');
    expect(script).to.contain('"$1/api/v1/nodes/$2/status"');
    expect(script).to.contain('patch_internal_ip "$server" "$node_name" "$last_internal_ip"');
    expect(script).to.contain('--key "$client_certificate"');
    expect(script).to.contain('/opt/bin/kubectl --kubeconfig /var/lib/kubelet/kubeconfig-real "$@"');
    expect(script).not.to.match(/\breboot\b(?! the machine)/);
    expect(script).not.to.contain('sudo');
  });

  it('writes the kubelet CA and config as b64 files', () => {
    const out = kubelet(componentContext());
    expect(contentOf(fileAt(out, '/var/lib/kubelet/config/kubelet'))).to.match(
      /^apiVersion: kubelet.config.k8s.io\/v1beta1\n/,
    );
    expect(fileAt(out, '/var/lib/kubelet/ca.crt').permissions).to.equal(0o644);
  });

  it('matches the reviewed golden files', () => {
    expectComponentGolden('kubelet', kubelet(componentContext()));
    expectComponentGolden('kubelet-legacy', kubelet(componentContext({ useGardenerNodeAgent: false })));
  });
});
