/** The kernel parameters of the Gardener v1.150.0 contract. */
import { expect } from 'chai';
import {
  kernelConfigContentV150,
  kernelConfigV150,
} from '../../../components/kernel-config/kernel-config-v150.js';
import { expectComponentGoldenV150 } from '../v150-golden.js';

describe('kernel config of the v1.150.0 contract', () => {
  it('sizes the conntrack table only when kube-proxy is off', () => {
    expect(kernelConfigContentV150({ kubeProxyEnabled: false, sysctls: {} })).to.contain(
      'net.netfilter.nf_conntrack_max = 1048576\n',
    );
    expect(kernelConfigContentV150({ kubeProxyEnabled: true, sysctls: {} })).not.to.contain('conntrack');
  });

  it('adds the protect-kernel-defaults values unless the shoot turns the flag off', () => {
    expect(kernelConfigContentV150({ kubeProxyEnabled: true, sysctls: {} })).to.contain(
      'vm/panic_on_oom = 0\n',
    );
    expect(
      kernelConfigContentV150({ kubeProxyEnabled: true, protectKernelDefaults: false, sysctls: {} }),
    ).not.to.contain('vm/panic_on_oom');
  });

  it("lets the pool's sysctls win", () => {
    const content = kernelConfigContentV150({
      kubeProxyEnabled: false,
      sysctls: { 'net.netfilter.nf_conntrack_max': '42', 'vm/panic_on_oom': '1' },
    });
    expect(content).to.contain('net.netfilter.nf_conntrack_max = 42\n');
    expect(content).to.contain('vm/panic_on_oom = 1\n');
  });

  it('matches its golden', () => {
    expectComponentGoldenV150('kernel-config', kernelConfigV150({ kubeProxyEnabled: true, sysctls: {} }));
  });
});
