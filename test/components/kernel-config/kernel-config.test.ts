import { expect } from 'chai';
import { parseSemVer } from '../../../api/index.js';
import type { KubeletConfigParameters } from '../../../components/component.js';
import { kernelConfig } from '../../../components/kernel-config/kernel-config.js';
import { componentContext, contentOf, expectComponentGolden } from '../support.js';

/** The base settings, sorted bytewise, as S-TV-15 expects them. */
const BASE = `fs.aio-max-nr = 262144
fs.file-max = 20000000
fs.inotify.max_user_instances = 8192
fs.inotify.max_user_watches = 524288
kernel.softlockup_all_cpu_backtrace = 1
kernel.softlockup_panic = 1
net.core.netdev_max_backlog = 16384
net.core.rmem_max = 16777216
net.core.somaxconn = 32768
net.core.wmem_max = 16777216
net.ipv4.conf.all.forwarding = 1
net.ipv4.conf.default.forwarding = 1
net.ipv4.conf.default.log_martians = 1
net.ipv4.ip_local_port_range = 32768 65535
net.ipv4.tcp_max_syn_backlog = 8096
net.ipv4.tcp_retries2 = 8
net.ipv4.tcp_rmem = 4096 12582912 16777216
net.ipv4.tcp_slow_start_after_idle = 0
net.ipv4.tcp_tw_reuse = 1
net.ipv4.tcp_wmem = 4096 12582912 16777216
net.ipv6.conf.all.forwarding = 1
net.ipv6.conf.default.forwarding = 1
net.netfilter.nf_conntrack_max = 1048576
vm.max_map_count = 135217728
vm.memory_failure_early_kill = 1
`;

/** Base plus the protect-kernel-defaults keys, merged in byte order. */
const WITH_PROTECT = `fs.aio-max-nr = 262144
fs.file-max = 20000000
fs.inotify.max_user_instances = 8192
fs.inotify.max_user_watches = 524288
kernel.softlockup_all_cpu_backtrace = 1
kernel.softlockup_panic = 1
kernel/keys/root_maxbytes = 25000000
kernel/keys/root_maxkeys = 1000000
kernel/panic = 10
kernel/panic_on_oops = 1
net.core.netdev_max_backlog = 16384
net.core.rmem_max = 16777216
net.core.somaxconn = 32768
net.core.wmem_max = 16777216
net.ipv4.conf.all.forwarding = 1
net.ipv4.conf.default.forwarding = 1
net.ipv4.conf.default.log_martians = 1
net.ipv4.ip_local_port_range = 32768 65535
net.ipv4.tcp_max_syn_backlog = 8096
net.ipv4.tcp_retries2 = 8
net.ipv4.tcp_rmem = 4096 12582912 16777216
net.ipv4.tcp_slow_start_after_idle = 0
net.ipv4.tcp_tw_reuse = 1
net.ipv4.tcp_wmem = 4096 12582912 16777216
net.ipv6.conf.all.forwarding = 1
net.ipv6.conf.default.forwarding = 1
net.netfilter.nf_conntrack_max = 1048576
vm.max_map_count = 135217728
vm.memory_failure_early_kill = 1
vm/overcommit_memory = 1
vm/panic_on_oom = 0
`;

function render(version: string, params: KubeletConfigParameters, sysctls: Record<string, string> = {}) {
  return kernelConfig(
    componentContext({ kubernetesVersion: parseSemVer(version), kubeletConfigParameters: params, sysctls }),
  );
}

function content(version: string, params: KubeletConfigParameters, sysctls: Record<string, string> = {}) {
  return contentOf(render(version, params, sysctls).files[0]!);
}

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/original/components/kernelconfig/component.go
// (S-TV-15).
describe('components/kernel-config', () => {
  it('restarts systemd-sysctl.service when the file changes, with no unit content', () => {
    expect(render('1.30.2', {}).units).to.deep.equal([
      {
        name: 'systemd-sysctl.service',
        command: 'restart',
        enable: true,
        filePaths: ['/etc/sysctl.d/99-k8s-general.conf'],
      },
    ]);
  });

  it('writes the file as plain text, 0644', () => {
    const [file] = render('1.25.0', {}).files;
    expect(file).to.deep.equal({
      path: '/etc/sysctl.d/99-k8s-general.conf',
      permissions: 420,
      content: { inline: { encoding: '', data: BASE } },
    });
  });

  it('1.25.0 + protectKernelDefaults nil: base lines only', () => {
    expect(content('1.25.0', {})).to.equal(BASE);
  });

  it('1.25.0 + protectKernelDefaults true: base + the six slash keys', () => {
    expect(content('1.25.0', { protectKernelDefaults: true })).to.equal(WITH_PROTECT);
  });

  it('1.26.0 + protectKernelDefaults nil: base + the six slash keys', () => {
    expect(content('1.26.0', {})).to.equal(WITH_PROTECT);
  });

  it('1.26.0 + protectKernelDefaults false: base lines only', () => {
    expect(content('1.26.0', { protectKernelDefaults: false })).to.equal(BASE);
  });

  it('counts pre-releases of 1.26 as 1.26 (constraint >= 1.26-0)', () => {
    expect(content('1.26.0-rc.1', {})).to.equal(WITH_PROTECT);
  });

  it('adds the pool sysctls in byte order', () => {
    const text = content('1.25.0', {}, { 'my.kernel.setting': '123' });
    expect(text).to.include(
      'kernel.softlockup_panic = 1\nmy.kernel.setting = 123\nnet.core.netdev_max_backlog = 16384\n',
    );
    expect(text.split('\n')).to.have.length(BASE.split('\n').length + 1);
  });

  it('lets the pool sysctls override base and protect-kernel-defaults values', () => {
    const text = content('1.30.2', {}, { 'vm.max_map_count': '262144', 'kernel/panic': '5' });
    expect(text).to.include('vm.max_map_count = 262144\n').and.include('kernel/panic = 5\n');
    expect(text).not.to.include('135217728').and.not.to.include('kernel/panic = 10');
  });

  it('sorts by bytes, not by locale (upper case before lower case)', () => {
    const text = content('1.25.0', {}, { 'Z.upper': '1' });
    expect(text.startsWith('Z.upper = 1\nfs.aio-max-nr')).to.equal(true);
  });

  it('refuses a line break in a key or value, which would inject another setting', () => {
    expect(() => render('1.30.2', {}, { 'a.b': '1\nkernel.panic = 0' })).to.throw(
      'sysctl "a.b": key and value must be single-line',
    );
  });

  it('is the same with and without the node agent', () => {
    const ctx = componentContext();
    expect(kernelConfig({ ...ctx, useGardenerNodeAgent: false })).to.deep.equal(kernelConfig(ctx));
  });

  it('matches the golden files', () => {
    expectComponentGolden('kernel-config', kernelConfig(componentContext()));
    expectComponentGolden(
      'kernel-config-sysctls',
      kernelConfig(componentContext({ sysctls: { 'my.kernel.setting': '123' } })),
    );
  });
});
