/** The operatingsystemconfig controller's choice of contract per Cluster. */
import { expect } from 'chai';
import { GARDENER_VERSION_ANNOTATION } from '../../../api/index.js';
import { decideContract } from '../../../controllers/operatingsystemconfig/contract.js';

describe('operatingsystemconfig contract per Cluster', () => {
  it('renders the configured contract for a Cluster without the annotation', () => {
    expect(decideContract(undefined, 'v1.91.4')).to.deep.equal({ render: true, gardenerVersion: 'v1.91.4' });
    expect(decideContract({ other: 'x' }, 'v1.91.4')).to.deep.equal({
      render: true,
      gardenerVersion: 'v1.91.4',
    });
  });

  it('takes the annotation over the configuration', () => {
    const decision = decideContract({ [GARDENER_VERSION_ANNOTATION]: 'v1.91.4' }, 'v1.150.0');
    expect(decision).to.deep.equal({ render: true, gardenerVersion: 'v1.91.4' });
  });

  it('renders v1.150.0 when the configuration or the annotation asks for it', () => {
    expect(decideContract({ [GARDENER_VERSION_ANNOTATION]: 'v1.150.0' }, 'v1.91.4')).to.deep.equal({
      render: true,
      gardenerVersion: 'v1.150.0',
    });
    expect(decideContract(undefined, 'v1.150.0')).to.deep.equal({
      render: true,
      gardenerVersion: 'v1.150.0',
    });
  });

  it('does not render for an annotation it does not know, naming it', () => {
    const decision = decideContract({ [GARDENER_VERSION_ANNOTATION]: '1.150' }, 'v1.91.4');
    expect(decision).to.deep.equal({
      render: false,
      reason: 'UnsupportedGardenerVersion',
      message: `annotation ${GARDENER_VERSION_ANNOTATION}: unknown Gardener version "1.150" (one of: v1.91.4, v1.150.0)`,
    });
  });
});
