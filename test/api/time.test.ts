import { expect } from 'chai';
import { formatMicroTime, formatRfc3339, formatRfc3339Nano, parseRfc3339 } from '../../api/time.js';

describe('timestamps', () => {
  it('formats RFC3339Nano as Go does: UTC, fraction trimmed', () => {
    expect(formatRfc3339Nano(new Date('2024-01-02T03:04:05.000Z'))).to.equal('2024-01-02T03:04:05Z');
    expect(formatRfc3339Nano(new Date('2024-01-02T03:04:05.120Z'))).to.equal('2024-01-02T03:04:05.12Z');
    expect(formatRfc3339Nano(parseRfc3339('2024-01-02T03:04:05.123456789+01:00'))).to.equal(
      '2024-01-02T02:04:05.123456789Z',
    );
    expect(formatRfc3339(parseRfc3339('2024-01-02T03:04:05.9Z'))).to.equal('2024-01-02T03:04:05Z');
  });

  it('rejects what is not RFC3339', () => {
    for (const bad of ['2024-01-02', '2024-02-30T00:00:00Z', 'yesterday', '2024-01-02T03:04:05']) {
      expect(() => parseRfc3339(bad), bad).to.throw(/invalid RFC3339/);
    }
  });

  it('writes metav1.MicroTime (Lease times): RFC 3339, six fractional digits, UTC', () => {
    expect(formatMicroTime(new Date('2026-01-02T03:04:05.678Z'))).to.equal('2026-01-02T03:04:05.678000Z');
    expect(formatMicroTime(new Date('2026-01-02T03:04:05Z'))).to.equal('2026-01-02T03:04:05.000000Z');
  });
});
