/**
 * The pure parts of hack/real-kubelet: when the real-node tests override the kubelet's cgroup
 * settings (only where the machine lacks the controllers), how, and which kubelet CSRs the test
 * landscape approves as a shoot's control plane would.
 */
import { expect } from 'chai';
import type { CsrObject } from '../../api/index.js';
import { missingControllers, overrideKubeletConfig } from '../../hack/real-kubelet/cgroup-controllers.js';
import {
  KUBELET_CLIENT_SIGNER,
  KUBELET_SERVING_SIGNER,
  wouldApprove,
} from '../../hack/real-kubelet/kubelet-csr-signer.js';

describe('hack/real-kubelet', () => {
  it('the override is needed only where cpu, memory or pids are not offered', () => {
    expect(missingControllers('hugetlb\n')).to.deep.equal(['cpu', 'memory', 'pids']);
    expect(missingControllers('cpuset cpu io memory hugetlb pids rdma misc\n')).to.deep.equal([]);
    expect(missingControllers('cpu io memory\n')).to.deep.equal(['pids']);
  });

  it('overrides exactly the named top-level fields of the rendered configuration', () => {
    const rendered = 'cgroupRoot: /\ncgroupsPerQOS: true\nenforceNodeAllocatable:\n- pods\nmaxPods: 110\n';
    expect(overrideKubeletConfig(rendered, { cgroupsPerQOS: false, enforceNodeAllocatable: [] })).to.equal(
      'cgroupRoot: /\ncgroupsPerQOS: false\nenforceNodeAllocatable: []\nmaxPods: 110\n',
    );
    expect(overrideKubeletConfig('maxPods: 110\n', { cgroupsPerQOS: false })).to.equal(
      'maxPods: 110\ncgroupsPerQOS: false\n',
    );
  });

  const csr = (signerName: string, username: string, groups: string[]): CsrObject => ({
    metadata: { name: 'csr-x' },
    spec: { signerName, username, groups, request: '' },
  });

  it('approves a client certificate of a bootstrap token or of the node itself, a serving one of the node', () => {
    expect(
      wouldApprove(csr(KUBELET_CLIENT_SIGNER, 'system:bootstrap:abcdef', ['system:bootstrappers'])),
    ).to.equal(true);
    expect(wouldApprove(csr(KUBELET_CLIENT_SIGNER, 'system:node:n1', ['system:nodes']))).to.equal(true);
    expect(wouldApprove(csr(KUBELET_SERVING_SIGNER, 'system:node:n1', ['system:nodes']))).to.equal(true);
  });

  it("approves a node agent's client certificate asked for with a bootstrap token (a v1.150 pool)", () => {
    const agent = (name: string, username: string, groups: string[]): CsrObject => ({
      metadata: { name },
      spec: { signerName: 'kubernetes.io/kube-apiserver-client', username, groups, request: '' },
    });
    expect(
      wouldApprove(agent('node-agent-csr-ab12', 'system:bootstrap:abcdef', ['system:bootstrappers'])),
    ).to.equal(true);
    expect(wouldApprove(agent('csr-ab12', 'system:bootstrap:abcdef', ['system:bootstrappers']))).to.equal(
      false,
    );
    expect(wouldApprove(agent('node-agent-csr-ab12', 'alice', ['system:authenticated']))).to.equal(false);
  });

  it('approves nothing else: a serving certificate by a bootstrap token, another signer, another user', () => {
    expect(
      wouldApprove(csr(KUBELET_SERVING_SIGNER, 'system:bootstrap:abcdef', ['system:bootstrappers'])),
    ).to.equal(false);
    expect(
      wouldApprove(csr('kubernetes.io/kube-apiserver-client', 'system:node:n1', ['system:nodes'])),
    ).to.equal(false);
    expect(wouldApprove(csr(KUBELET_CLIENT_SIGNER, 'alice', ['system:authenticated']))).to.equal(false);
    expect(wouldApprove(csr(KUBELET_CLIENT_SIGNER, 'system:node:n1', ['system:authenticated']))).to.equal(
      false,
    );
  });
});
