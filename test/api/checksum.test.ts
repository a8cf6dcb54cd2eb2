import { expect } from 'chai';
import { secretChecksum, sha256Hex } from '../../api/checksum.js';

// Upstream: gardener v1.91.4 pkg/utils/checksums.go.
describe('checksums', () => {
  it('S-TV-20: ComputeSecretChecksum', () => {
    expect(secretChecksum({ script: 'script' })).to.equal(
      '762ab2979c97da7384f04a460a2c09c4e6c8aa25cdc2c9845800f2ee644a3e62',
    );
  });

  it('hashes the per-key hashes in byte order of the keys, whatever the insertion order', () => {
    const a = secretChecksum({ b: 'x', a: 'y', B: 'z' });
    const b = secretChecksum({ B: 'z', a: 'y', b: 'x' });
    expect(a).to.equal(b);
    expect(a).to.equal(sha256Hex(sha256Hex('z') + sha256Hex('y') + sha256Hex('x')));
  });

  it('treats strings and bytes alike', () => {
    expect(secretChecksum({ k: Buffer.from('v') })).to.equal(secretChecksum({ k: 'v' }));
  });
});
