import { expect } from 'chai';
import { LEASE_DURATION_SECONDS } from '../../../../api/index.js';
import {
  formatMicroTime,
  LEASE_RENEW_INTERVAL_MS,
} from '../../../../node-agent/controllers/lease/lease-heartbeat.js';

describe('node agent lease heartbeat (node-side §10)', () => {
  it('renews every quarter of the 40 s lease duration', () => {
    expect(LEASE_DURATION_SECONDS).to.equal(40);
    expect(LEASE_RENEW_INTERVAL_MS).to.equal(10_000);
  });

  it('writes renewTime as metav1.MicroTime: RFC 3339, six fractional digits, UTC', () => {
    expect(formatMicroTime(new Date('2026-01-02T03:04:05.678Z'))).to.equal('2026-01-02T03:04:05.678000Z');
    expect(formatMicroTime(new Date('2026-01-02T03:04:05Z'))).to.equal('2026-01-02T03:04:05.000000Z');
  });
});
