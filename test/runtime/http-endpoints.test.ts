import { expect } from 'chai';
import { Counter, Registry } from 'prom-client';
import { pingCheck, serveEndpoints } from '../../runtime/http-endpoints.js';

describe('health and metrics endpoints', () => {
  it('serves /healthz, /readyz with named checks and /metrics', async () => {
    let synced = false;
    const registry = new Registry();
    new Counter({ name: 'demo_total', help: 'demo', registers: [registry] }).inc(3);
    const server = await serveEndpoints({
      host: '127.0.0.1',
      port: 0,
      healthz: [pingCheck],
      readyz: [
        {
          name: 'informer-sync',
          check: () => {
            if (!synced) throw new Error('caches not synced');
          },
        },
      ],
      registry,
    });
    try {
      const healthz = await fetch(`${server.url}/healthz`);
      expect(healthz.status).to.equal(200);
      expect(await healthz.text()).to.equal('[+]ping ok\ncheck passed\n');
      const notReady = await fetch(`${server.url}/readyz`);
      expect(notReady.status).to.equal(500);
      expect(await notReady.text()).to.contain('[-]informer-sync failed: caches not synced');
      synced = true;
      expect((await fetch(`${server.url}/readyz`)).status).to.equal(200);
      const metrics = await fetch(`${server.url}/metrics`);
      expect(await metrics.text()).to.contain('demo_total 3');
      expect((await fetch(`${server.url}/nope`)).status).to.equal(404);
    } finally {
      await server.close();
    }
  });
});
