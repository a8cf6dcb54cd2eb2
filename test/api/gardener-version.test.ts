/** The contract switch: which Gardener release is rendered, and the Kubernetes minors of each. */
import { expect } from 'chai';
import {
  chooseGardenerVersion,
  DEFAULT_GARDENER_VERSION,
  GARDENER_VERSION_ANNOTATION,
  GARDENER_VERSIONS,
  isGardenerVersion,
} from '../../api/gardener-version.js';
import {
  isSupportedKubernetesVersion,
  supportedKubernetesMinors,
  unsupportedKubernetesVersionMessage,
} from '../../api/kubernetes-versions.js';
import { parseSemVer } from '../../api/semver.js';

describe('Gardener version (the contract switch)', () => {
  it('knows exactly v1.91.4 and v1.150.0, and defaults to v1.91.4', () => {
    expect(GARDENER_VERSIONS).to.deep.equal(['v1.91.4', 'v1.150.0']);
    expect(DEFAULT_GARDENER_VERSION).to.equal('v1.91.4');
    expect(GARDENER_VERSION_ANNOTATION).to.equal('node-configuration.gardener.cloud/gardener-version');
    for (const bad of ['1.150.0', 'v1.150', 'v1.91.3', '', 'V1.150.0', undefined])
      expect(isGardenerVersion(bad), String(bad)).to.equal(false);
  });

  it('takes an explicit choice over the annotation, and the annotation over the fallback', () => {
    const annotated = { [GARDENER_VERSION_ANNOTATION]: 'v1.150.0' };
    expect(chooseGardenerVersion(undefined, 'v1.91.4')).to.deep.equal({ ok: true, version: 'v1.91.4' });
    expect(chooseGardenerVersion({}, 'v1.150.0')).to.deep.equal({ ok: true, version: 'v1.150.0' });
    expect(chooseGardenerVersion(annotated, 'v1.91.4')).to.deep.equal({ ok: true, version: 'v1.150.0' });
    expect(chooseGardenerVersion(annotated, 'v1.91.4', 'v1.91.4')).to.deep.equal({
      ok: true,
      version: 'v1.91.4',
    });
  });

  it('refuses an annotation it does not know, naming the value and the choices', () => {
    const choice = chooseGardenerVersion({ [GARDENER_VERSION_ANNOTATION]: 'v1.149.3' }, 'v1.91.4');
    expect(choice).to.deep.equal({
      ok: false,
      value: 'v1.149.3',
      detail: 'unknown Gardener version "v1.149.3" (one of: v1.91.4, v1.150.0)',
    });
  });

  it('supports 1.32 to 1.36 in v1.150.0 and keeps 1.25 to 1.34 in v1.91.4', () => {
    expect(supportedKubernetesMinors('v1.150.0')).to.deep.equal(['1.32', '1.33', '1.34', '1.35', '1.36']);
    expect(supportedKubernetesMinors('v1.91.4')[0]).to.equal('1.25');
    expect(supportedKubernetesMinors('v1.91.4').at(-1)).to.equal('1.34');
    const v150 = (text: string) => isSupportedKubernetesVersion(parseSemVer(text), 'v1.150.0');
    expect(v150('1.32.0')).to.equal(true);
    expect(v150('1.36.2-rc.1')).to.equal(true);
    expect(v150('1.31.9')).to.equal(false);
    expect(v150('1.37.0')).to.equal(false);
    expect(v150('1.29.8')).to.equal(false);
    expect(isSupportedKubernetesVersion(parseSemVer('1.35.0'))).to.equal(false);
    expect(isSupportedKubernetesVersion(parseSemVer('1.35.0'), 'v1.91.4')).to.equal(false);
  });

  it('names the contract in the message for v1.150.0 and keeps v1.91.4 wording as it was', () => {
    expect(unsupportedKubernetesVersionMessage('1.31.2', 'v1.150.0')).to.equal(
      'unsupported kubernetes version "1.31.2" (supported minors of the Gardener v1.150.0 contract: 1.32, 1.33, 1.34, 1.35, 1.36)',
    );
    expect(unsupportedKubernetesVersionMessage('1.35.0')).to.equal(
      'unsupported kubernetes version "1.35.0" (supported minors: 1.25, 1.26, 1.27, 1.28, 1.29, 1.30, 1.31, 1.32, 1.33, 1.34)',
    );
  });
});
