import { expect } from 'chai';
import { LEASE_DURATION_SECONDS } from '../../../../api/index.js';
import { LEASE_RENEW_INTERVAL_MS } from '../../../../node-agent/controllers/lease/lease-heartbeat.js';

// Upstream: gardener v1.91.4 pkg/nodeagent/controller/lease/reconciler.go.
describe('node agent lease heartbeat', () => {
  it('renews every quarter of the 40 s lease duration', () => {
    expect(LEASE_DURATION_SECONDS).to.equal(40);
    expect(LEASE_RENEW_INTERVAL_MS).to.equal(10_000);
  });
});
