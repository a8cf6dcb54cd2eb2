/** The node agent's token and lease controllers against a real API server. */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { expect } from 'chai';
import {
  type Envtest,
  readAuditEvents,
  requireClusterScopedWrites,
  startEnvtest,
} from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { addLeaseController } from '../../node-agent/controllers/lease/add.js';
import { addTokenController } from '../../node-agent/controllers/token/add.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';

const tokenSecret = (name: string, token: string) => ({
  metadata: { name, namespace: 'kube-system' },
  data: { token: Buffer.from(token).toString('base64') },
});

describe('node agent token and lease controllers against a real API server', function () {
  this.timeout(120_000);
  let env: Envtest;
  let core: CoreV1Api;
  let root: string;
  const stop = new AbortController();
  const suffix = Date.now().toString(36);

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'shoot' });
    requireClusterScopedWrites(env);
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    root = mkdtempSync(join(tmpdir(), 'gna-token-'));
  });

  after(async () => {
    stop.abort();
    rmSync(root, { recursive: true, force: true });
    for (const name of [`agent-${suffix}`, `valitail-${suffix}`]) {
      await core?.deleteNamespacedSecret({ name, namespace: 'kube-system' }).catch(() => undefined);
    }
    await core?.deleteNode({ name: `lease-node-${suffix}` }).catch(() => undefined);
  });

  it('writes each access token to its file (0600) and follows rotations without restarting', async () => {
    await core.createNamespacedSecret({
      namespace: 'kube-system',
      body: tokenSecret(`agent-${suffix}`, 'access-token-1'),
    });
    await core.createNamespacedSecret({
      namespace: 'kube-system',
      body: tokenSecret(`valitail-${suffix}`, 'access-token-2'),
    });
    const agentPath = '/var/lib/gardener-node-agent/credentials/token';
    const valitailPath = '/var/lib/valitail/auth-token';
    const tokens = addTokenController(
      {
        http: new KubeHttp(env.kubeConfig),
        syncConfigs: [
          { secretName: `agent-${suffix}`, path: agentPath },
          { secretName: `valitail-${suffix}`, path: valitailPath },
        ],
        syncPeriodMs: 3_600_000,
        root,
      },
      stop.signal,
    );
    await tokens.synced();
    const file = (p: string) => {
      try {
        return readFileSync(join(root, p), 'utf8');
      } catch {
        return undefined;
      }
    };
    await eventually(
      'both token files',
      () => file(agentPath) === 'access-token-1' && file(valitailPath) === 'access-token-2',
    );
    expect(statSync(join(root, agentPath)).mode & 0o777).to.equal(0o600);
    await core.replaceNamespacedSecret({
      name: `agent-${suffix}`,
      namespace: 'kube-system',
      body: tokenSecret(`agent-${suffix}`, 'new-token1'),
    });
    await eventually('the rotated token', () => file(agentPath) === 'new-token1');
    expect(file(valitailPath)).to.equal('access-token-2');
  });

  it('keeps a Lease owned by the Node and renews it', async () => {
    const node: V1Node = await core.createNode({ body: { metadata: { name: `lease-node-${suffix}` } } });
    const api = env.kubeConfig.makeApiClient(CoordinationV1Api);
    // the controller runs as its own user, so the audit log tells its requests apart
    const user = `lease-writer-${suffix}`;
    const agentClient = new KubeClient(new KubeHttp(await env.kubeConfigForUser(user, ['system:masters'])));
    addLeaseController({ client: agentClient, node: () => node, renewIntervalMs: 500 }, stop.signal);
    const name = `gardener-node-agent-lease-node-${suffix}`;
    let first = '';
    await eventually('the lease', async () => {
      const lease = await api.readNamespacedLease({ name, namespace: 'kube-system' }).catch(() => undefined);
      first = String(lease?.spec?.renewTime ?? '');
      return lease !== undefined;
    });
    const lease = await api.readNamespacedLease({ name, namespace: 'kube-system' });
    expect(lease.spec?.leaseDurationSeconds).to.equal(40);
    expect(lease.spec?.holderIdentity).to.equal(name);
    expect(lease.metadata?.ownerReferences).to.deep.equal([
      {
        apiVersion: 'v1',
        kind: 'Node',
        name: node.metadata?.name,
        uid: node.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    await eventually('a renewal', async () => {
      const renewed = await api.readNamespacedLease({ name, namespace: 'kube-system' });
      return String(renewed.spec?.renewTime) !== first;
    });

    // renewals update the Lease the last renewal returned: no GET each time
    const leaseRequests = (verb: string) =>
      readAuditEvents(env).filter(
        (e) =>
          e.user.username === user &&
          e.verb === verb &&
          e.stage === 'ResponseComplete' &&
          e.requestURI.includes(`/leases/${name}`),
      ).length;
    await eventually('three renewals', () => leaseRequests('update') >= 3);
    expect(leaseRequests('get'), 'one read before the Lease existed').to.equal(1);
    // someone else writes the Lease: the next renewal conflicts, reads it again, and still renews
    const current = await api.readNamespacedLease({ name, namespace: 'kube-system' });
    await api.replaceNamespacedLease({
      name,
      namespace: 'kube-system',
      body: { ...current, metadata: { ...current.metadata, labels: { touched: 'true' } } },
    });
    const updatesBefore = leaseRequests('update');
    await eventually('a renewal after the conflict', () => leaseRequests('update') >= updatesBefore + 2);
    expect(leaseRequests('get')).to.equal(2);
  });
});
