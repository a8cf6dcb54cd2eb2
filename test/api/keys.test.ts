import { expect } from 'chai';
import { key, keyFor, keySuffix, keySuffixHash, legacyKey } from '../../api/keys.js';
import { parseSemVer } from '../../api/semver.js';

// Upstream: gardener v1.91.4 pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go.
describe('keys', () => {
  it('S-TV-1: Key and LegacyKey', () => {
    expect(key('foo', parseSemVer('1.2.3'))).to.equal('gardener-node-agent-foo-77ac3');
    expect(legacyKey('foo', '1.2.3')).to.equal('cloud-config-foo-77ac3');
    expect(key('foo', undefined)).to.equal('');
    expect(legacyKey('foo', undefined)).to.equal('');
    expect(key('foo', '1.2.3', 'containerd')).to.equal('gardener-node-agent-foo-cf2c8');
    expect(key('foo', '1.2.3', 'other')).to.equal('gardener-node-agent-foo-5aa45');
  });

  it('S-TV-2: hash prefixes of "<major>.<minor><cri>"', () => {
    const vectors: [string, string | undefined, string][] = [
      ['1.2.0', undefined, '77ac3'],
      ['4.5.0', 'containerd', 'd9e53'],
      ['4.5.0', undefined, '32209'],
      ['1.23.0', undefined, '5dcdf'],
      ['1.24.0', undefined, 'c63c0'],
      ['1.25.0', undefined, '004a9'],
      ['1.26.0', undefined, 'e6948'],
      ['1.27.0', undefined, '628fd'],
      ['1.28.0', undefined, '88db5'],
      ['1.28.0', 'containerd', 'f76b6'],
      ['1.29.0', undefined, '45c61'],
      ['1.29.0', 'containerd', 'd0ffc'],
    ];
    for (const [version, cri, hash] of vectors)
      expect(keySuffixHash(version, cri), `${version}${cri ?? ''}`).to.equal(hash);
  });

  it('ignores patch and pre-release, reads versions leniently', () => {
    expect(key('p', 'v1.28.2-rc.1')).to.equal(key('p', '1.28'));
    expect(() => key('p', 'not-a-version')).to.throw(/invalid semantic version/);
  });

  it('S-TV-3: OSC names per purpose and gate', () => {
    expect(key('worker1', '1.2.3') + keySuffix('type1', 'provision', true)).to.equal(
      'gardener-node-agent-worker1-77ac3-type1-init',
    );
    expect(key('worker1', '1.2.3') + keySuffix('type1', 'reconcile', true)).to.equal(
      'gardener-node-agent-worker1-77ac3-type1-original',
    );
    expect(key('worker2', '4.5.6', 'containerd') + keySuffix('type2', 'provision', true)).to.equal(
      'gardener-node-agent-worker2-d9e53-type2-init',
    );
    expect(keyFor(false, 'worker1', '1.2.3') + keySuffix('type1', 'provision', false)).to.equal(
      'cloud-config-worker1-77ac3-type1-downloader',
    );
    expect(keyFor(false, 'worker1', '1.2.3') + keySuffix('type1', 'reconcile', false)).to.equal(
      'cloud-config-worker1-77ac3-type1-original',
    );
  });
});
