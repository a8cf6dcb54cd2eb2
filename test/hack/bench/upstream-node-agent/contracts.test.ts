import { expect } from 'chai';
import { contractsOf } from '../../../../hack/bench/upstream-node-agent/contracts.js';

describe('the contracts of the upstream-agent benchmark', () => {
  it('both by default: v1.91.4 on a 1.29 pool, then v1.150.0 at the kubelet’s own version', () => {
    expect(contractsOf('both').map((c) => [c.gardenerVersion, c.kubernetesVersion])).to.deep.equal([
      ['v1.91.4', '1.29.8'],
      ['v1.150.0', undefined],
    ]);
  });

  it('one contract by its version; anything else names the choices', () => {
    expect(contractsOf('v1.150.0').map((c) => c.gardenerVersion)).to.deep.equal(['v1.150.0']);
    expect(() => contractsOf('v1.149.0')).to.throw('--contract takes one of v1.91.4, v1.150.0, both');
  });
});
