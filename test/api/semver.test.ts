import { expect } from 'chai';
import { isSupportedKubernetesVersion, SUPPORTED_KUBERNETES_MINORS } from '../../api/kubernetes-versions.js';
import { formatSemVer, isAtLeastMinor, parseSemVer } from '../../api/semver.js';

describe('Kubernetes versions', () => {
  it('reads leniently and writes without v', () => {
    expect(formatSemVer(parseSemVer('v1.27.0'))).to.equal('1.27.0');
    expect(formatSemVer(parseSemVer('1.2'))).to.equal('1.2.0');
    expect(formatSemVer(parseSemVer('1.28.2-rc.1+build.5'))).to.equal('1.28.2-rc.1+build.5');
    for (const bad of ['', 'x', '1.2.3.4', '1.2.3-01', 'v']) expect(() => parseSemVer(bad), bad).to.throw();
  });

  it('supports 1.25 to 1.34 and ignores pre-releases like Gardener', () => {
    expect(SUPPORTED_KUBERNETES_MINORS[0]).to.equal('1.25');
    expect(SUPPORTED_KUBERNETES_MINORS.at(-1)).to.equal('1.34');
    expect(isSupportedKubernetesVersion(parseSemVer('1.25.0'))).to.equal(true);
    expect(isSupportedKubernetesVersion(parseSemVer('1.34.9-rc.0'))).to.equal(true);
    expect(isSupportedKubernetesVersion(parseSemVer('1.24.9'))).to.equal(false);
    expect(isSupportedKubernetesVersion(parseSemVer('1.35.0'))).to.equal(false);
    expect(isSupportedKubernetesVersion(parseSemVer('2.27.0'))).to.equal(false);
  });

  it('compares minors as the "-0" constraints do', () => {
    expect(isAtLeastMinor(parseSemVer('1.27.0-alpha.1'), 1, 27)).to.equal(true);
    expect(isAtLeastMinor(parseSemVer('1.26.15'), 1, 27)).to.equal(false);
    expect(isAtLeastMinor(parseSemVer('2.0.0'), 1, 27)).to.equal(true);
  });
});
