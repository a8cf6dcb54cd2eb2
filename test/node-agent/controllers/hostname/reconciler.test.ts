import { expect } from 'chai';
import { hostnameReconciler } from '../../../../node-agent/controllers/hostname/reconciler.js';
import { silentLogger } from '../../../../runtime/logging.js';

describe('hostname check reconciler', () => {
  const ctx = { signal: new AbortController().signal, log: silentLogger };

  it('looks again after its interval while the hostname is the one it started with', async () => {
    let restarts = 0;
    const reconcile = hostnameReconciler({
      startupHost: 'machine-a',
      hostname: () => 'Machine-A',
      intervalMs: 30_000,
      restartSelf: () => restarts++,
    });
    expect(await reconcile('hostname', ctx)).to.deep.equal({ requeueAfterMs: 30_000 });
    expect(restarts).to.equal(0);
  });

  it('restarts the agent once the hostname changed', async () => {
    let restarts = 0;
    const reconcile = hostnameReconciler({
      startupHost: 'machine-a',
      hostname: () => 'machine-b',
      intervalMs: 30_000,
      restartSelf: () => restarts++,
    });
    expect(await reconcile('hostname', ctx)).to.equal(undefined);
    expect(restarts).to.equal(1);
  });
});
