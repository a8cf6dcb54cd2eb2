import { expect } from 'chai';
import {
  CLUSTER_CA_BUNDLE_SELECTOR,
  hasLabels,
  KUBELET_CA_BUNDLE_SELECTOR,
  labelSelector,
  SECRETS_MANAGER_SELECTOR,
  SSH_KEYPAIR_LABELS,
  SSH_KEYPAIR_SELECTOR,
} from '../../../seed/shoot-secrets/index.js';

describe('shoot-secrets: label selectors', () => {
  it('are the exact strings the controller lists with', () => {
    expect(SECRETS_MANAGER_SELECTOR).to.equal('managed-by=secrets-manager,manager-identity=gardenlet');
    expect(CLUSTER_CA_BUNDLE_SELECTOR).to.equal(
      'bundle-for=ca,managed-by=secrets-manager,manager-identity=gardenlet',
    );
    expect(KUBELET_CA_BUNDLE_SELECTOR).to.equal(
      'bundle-for=ca-kubelet,managed-by=secrets-manager,manager-identity=gardenlet',
    );
    expect(SSH_KEYPAIR_SELECTOR).to.equal(
      'managed-by=secrets-manager,manager-identity=gardenlet,name=ssh-keypair',
    );
  });

  it('sorts keys, so the same set always gives the same string', () => {
    expect(labelSelector({ b: '2', a: '1' })).to.equal('a=1,b=2');
  });

  it('hasLabels needs every label with exactly that value; extra labels do not matter', () => {
    const labels = {
      name: 'ssh-keypair',
      'managed-by': 'secrets-manager',
      'manager-identity': 'gardenlet',
      persist: 'true',
    };
    expect(hasLabels({ metadata: { name: 's', labels } }, SSH_KEYPAIR_LABELS)).to.equal(true);
    expect(
      hasLabels(
        { metadata: { name: 's', labels: { ...labels, 'manager-identity': 'gardener-operator' } } },
        SSH_KEYPAIR_LABELS,
      ),
    ).to.equal(false);
    expect(hasLabels({ metadata: { name: 's' } }, SSH_KEYPAIR_LABELS)).to.equal(false);
    expect(hasLabels({}, {})).to.equal(true);
  });
});
