import type { V1Node } from '@kubernetes/client-node';
import { expect } from 'chai';
import { stringifyYaml } from '../../api/index.js';
import { rolloutDrift } from '../../cli/drift-command.js';
import { driftByPool } from '../../cli/drift-status.js';

const node = (name: string, pool: string, drift?: 'True' | 'False', message = ''): V1Node => ({
  metadata: { name, labels: { 'worker.gardener.cloud/pool': pool } },
  status: {
    conditions: [
      { type: 'Ready', status: 'True' },
      ...(drift
        ? [
            {
              type: 'NodeConfigurationDrift',
              status: drift,
              message,
              lastTransitionTime: new Date('2026-12-02T10:00:00Z'),
            },
          ]
        : []),
    ],
  },
});

const NODES = [
  node('b-2', 'cpu-worker', 'True', 'Report: file /etc/motd: content (expected sha256:1, node has sha256:2)'),
  node('b-1', 'cpu-worker', 'False'),
  node('g-1', 'gpu-worker'),
  node('b-3', 'cpu-worker', 'True', 'Repair: unit kubelet.service: enablement'),
];

describe('gardener-osc rollout drift', () => {
  it('lists drifted nodes per pool, and the nodes not watched', () => {
    expect(driftByPool(NODES)).to.deep.equal([
      {
        pool: 'cpu-worker',
        nodes: 3,
        unwatched: 0,
        drifted: [
          {
            node: 'b-2',
            since: '2026-12-02T10:00:00.000Z',
            message: NODES[0]?.status?.conditions?.[1]?.message,
          },
          {
            node: 'b-3',
            since: '2026-12-02T10:00:00.000Z',
            message: 'Repair: unit kubelet.service: enablement',
          },
        ],
      },
      { pool: 'gpu-worker', nodes: 1, unwatched: 1, drifted: [] },
    ]);
  });

  it('prints a table from `kubectl get nodes -o yaml`', async () => {
    const text = stringifyYaml({ apiVersion: 'v1', kind: 'List', items: NODES });
    const out = await rolloutDrift({ file: '-', format: 'table' }, {}, () => text);
    expect(out).to.equal(
      [
        'cpu-worker: 2 of 3 nodes drifted',
        '  b-2 since 2026-12-02T10:00:00.000Z: Report: file /etc/motd: content (expected sha256:1, node has sha256:2)',
        '  b-3 since 2026-12-02T10:00:00.000Z: Repair: unit kubelet.service: enablement',
        'gpu-worker: 0 of 1 nodes drifted, 1 not watched for drift',
        '',
      ].join('\n'),
    );
  });
});
