/**
 * Which credentials the agent runs with, decided by what it is given: a per-node identity where
 * its configuration names `credentials/kubeconfig`, or where it follows the v1.150 contract and
 * names no kubeconfig (gardenlet v1.150.0 renders none); the shared token otherwise.
 */
import { expect } from 'chai';
import { type NodeAgentConfiguration, PATH } from '../../../api/index.js';
import { usesNodeIdentity } from '../../../node-agent/agent/rest-config.js';

const config = (kubeconfig: string) =>
  ({ clientConnection: { kubeconfig } }) as unknown as NodeAgentConfiguration;

describe('the per-node identity or the shared token', () => {
  it('v1.91: the identity only where the configuration names its kubeconfig', () => {
    expect(usesNodeIdentity(config(''), {})).to.equal(false);
    expect(usesNodeIdentity(config(''), {}, 'v1.91.4')).to.equal(false);
    expect(usesNodeIdentity(config(PATH.nodeAgentKubeconfig), {})).to.equal(true);
  });

  it('v1.150: the identity where no kubeconfig is named, as upstream v1.150.0 has no shared token', () => {
    expect(usesNodeIdentity(config(''), {}, 'v1.150.0')).to.equal(true);
    expect(usesNodeIdentity(config(PATH.nodeAgentKubeconfig), {}, 'v1.150.0')).to.equal(true);
  });

  it('another kubeconfig or $KUBECONFIG wins in either contract', () => {
    expect(usesNodeIdentity(config('/etc/other.kubeconfig'), {}, 'v1.150.0')).to.equal(false);
    expect(usesNodeIdentity(config(''), { KUBECONFIG: '/k' }, 'v1.150.0')).to.equal(false);
    expect(usesNodeIdentity(config(PATH.nodeAgentKubeconfig), { KUBECONFIG: '/k' })).to.equal(false);
  });
});
