import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../api/index.js';
import { nodeStatus, nodesNotUpdated } from '../../controllers/operatingsystemconfig/node-status.js';
import { oscReadiness } from '../../controllers/operatingsystemconfig/osc-readiness.js';

const NOW = '2024-01-01T10:00:00Z';

function osc(
  annotations: Record<string, string>,
  status?: OperatingSystemConfig['status'],
  generation = 1,
): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: 'o', namespace: 'test-namespace', annotations, generation },
    spec: { type: 't', purpose: 'reconcile' },
    status,
  };
}

const written = osc({ 'gardener.cloud/timestamp': NOW, 'gardener.cloud/operation': 'reconcile' });
const succeeded = (lastUpdateTime: string) => ({
  lastOperation: { description: '', lastUpdateTime, progress: 100, state: 'Succeeded', type: 'Reconcile' },
  observedGeneration: 1,
});

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go (S-TV-26).
describe('waiting for the OS extension', () => {
  it('not found', () => {
    expect(oscReadiness(written, undefined)).to.deep.include({
      ready: false,
      reason: 'OperatingSystemConfig test-namespace/o not found',
    });
  });

  it('surfaces lastError as not retriable', () => {
    const live = osc({ 'gardener.cloud/timestamp': NOW }, { lastError: { description: 'Some error' } });
    expect(oscReadiness(written, live)).to.deep.equal({
      ready: false,
      reason: 'error during reconciliation: Some error',
      retriable: false,
    });
  });

  it('succeeded without cloudConfig', () => {
    const live = osc({ 'gardener.cloud/timestamp': NOW }, succeeded('2024-01-01T10:00:05Z'));
    expect(oscReadiness(written, live)).to.deep.include({
      reason: 'no cloud config information provided in status',
    });
  });

  it('a live timestamp older than ours, a pending operation, an old lastUpdateTime, an unobserved generation', () => {
    const status = {
      ...succeeded('2024-01-01T10:00:05Z'),
      cloudConfig: { secretRef: { name: 'cc', namespace: 'test-namespace' } },
    };
    expect(
      oscReadiness(written, osc({ 'gardener.cloud/timestamp': '2024-01-01T09:00:00Z' }, status)).ready,
    ).to.equal(false);
    expect(
      oscReadiness(
        written,
        osc({ 'gardener.cloud/timestamp': NOW, 'gardener.cloud/operation': 'reconcile' }, status),
      ).ready,
    ).to.equal(false);
    expect(
      oscReadiness(
        written,
        osc(
          { 'gardener.cloud/timestamp': NOW },
          { ...status, lastOperation: { ...status.lastOperation, lastUpdateTime: '2024-01-01T09:59:59Z' } },
        ),
      ).ready,
    ).to.equal(false);
    expect(oscReadiness(written, osc({ 'gardener.cloud/timestamp': NOW }, status, 2)).ready).to.equal(false);
  });

  it('ready: matching timestamp, succeeded after it (to the second), cloudConfig set', () => {
    const status = {
      ...succeeded('2024-01-01T10:00:00.9Z'),
      cloudConfig: { secretRef: { name: 'cc', namespace: 'test-namespace' } },
    };
    expect(oscReadiness(written, osc({ 'gardener.cloud/timestamp': NOW }, status))).to.deep.equal({
      ready: true,
    });
  });
});

// Upstream: gardener v1.91.4 pkg/gardenlet/operation/botanist/worker.go (S-TV-23).
describe('all nodes updated', () => {
  const node = (
    annotations: Record<string, string> = {},
    taints: { key: string; effect: string }[] = [],
  ) => ({
    name: 'n',
    labels: { 'worker.gardener.cloud/kubernetes-version': '1.24.0' },
    annotations,
    taints,
  });
  const secret = (name: string) => ({ name, annotations: { 'checksum/data-script': 'foo' } });
  const state = (s: { name: string } | undefined, nodes = [node()]) => ({
    pools: ['pool1'],
    secretsByPool: new Map(s ? [['pool1', s]] : []),
    nodesByPool: new Map([['pool1', nodes]]),
  });
  const check = (s: { name: string } | undefined, n = node()) =>
    nodesNotUpdated(state(s, [n]))
      .map((p) => p.message)
      .join('\n');

  it('missing secret metadata', () => {
    expect(check(undefined)).to.contain('missing operating system config secret metadata');
  });

  it('not reported yet, outdated, up to date', () => {
    expect(check(secret('gardener-node-agent--c63c0'))).to.contain("hasn't been reported yet");
    expect(
      check(secret('gardener-node-agent--c63c0'), node({ 'checksum/cloud-config-data': 'bar' })),
    ).to.contain('is outdated');
    expect(
      check(secret('gardener-node-agent--c63c0'), node({ 'checksum/cloud-config-data': 'foo' })),
    ).to.equal('');
  });

  it('skips nodes about to be deleted and nodes of another key', () => {
    const tainted = node({}, [
      { key: 'deployment.machine.sapcloud.io/prefer-no-schedule', effect: 'PreferNoSchedule' },
    ]);
    expect(check(secret('gardener-node-agent--c63c0'), tainted)).to.equal('');
    expect(check(secret('gardener-node-agent--c63c1'))).to.equal('');
  });

  it('counts outdated nodes by name, not by message text', () => {
    const outdated = (name: string) => ({ ...node({ 'checksum/cloud-config-data': 'bar' }), name });
    const status = nodeStatus(
      state(secret('gardener-node-agent--c63c0'), [outdated('a'), outdated('b'), node()]),
    );
    expect(status).to.deep.include({ total: 3, outdated: 3 });
    expect(status.problems.map((p) => p.node)).to.deep.equal(['a', 'b', 'n']);
    const missing = nodeStatus(state(undefined, [node(), node()]));
    expect(missing).to.deep.include({ total: 2, outdated: 0 });
    expect(missing.summary).to.match(/^missing operating system config secret metadata/);
    expect(nodeStatus(state(secret('gardener-node-agent--c63c0'), [])).summary).to.equal('updated');
  });
});
