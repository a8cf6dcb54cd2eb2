import { expect } from 'chai';
import { ANNOTATION, LABEL, PERMITTED_CHECKSUM_ANNOTATION } from '../../api/index.js';
import type { NodeObject, SecretObject } from '../../controllers/rollout/observe.js';
import {
  clusterAnnotationsSignature,
  nodeSignature,
  secretSignature,
} from '../../controllers/rollout/signatures.js';

const node = (patch: Partial<NodeObject> = {}): NodeObject => ({
  metadata: {
    name: 'n',
    labels: { [LABEL.workerPool]: 'pool', other: 'x' },
    annotations: { [ANNOTATION.checksumCloudConfigData]: 'a', unrelated: '1' },
  },
  status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  ...patch,
});

describe('rollout signatures', () => {
  it('a Node signature ignores what the gate does not read', () => {
    const base = node();
    const unrelated = node({
      metadata: {
        ...base.metadata,
        labels: { ...base.metadata?.labels, other: 'y' },
        annotations: { ...base.metadata?.annotations, unrelated: '2' },
      },
      status: {
        conditions: [
          ...(base.status?.conditions ?? []),
          { type: 'MemoryPressure', status: 'False', lastTransitionTime: '2026-01-02T00:00:00Z' },
        ],
      },
    });
    expect(nodeSignature(unrelated)).to.equal(nodeSignature(base));
  });

  it('a Node signature changes with a checksum, the permission, a pool label, Ready, a taint or deletion', () => {
    const base = node();
    const changes: NodeObject[] = [
      node({ metadata: { ...base.metadata, annotations: { [ANNOTATION.checksumCloudConfigData]: 'b' } } }),
      node({
        metadata: {
          ...base.metadata,
          annotations: { ...base.metadata?.annotations, [PERMITTED_CHECKSUM_ANNOTATION]: 'a' },
        },
      }),
      node({ metadata: { ...base.metadata, labels: { [LABEL.workerPool]: 'other' } } }),
      node({
        status: {
          conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z' }],
        },
      }),
      node({
        status: {
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-03T00:00:00Z' }],
        },
      }),
      node({ spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } }),
      node({ metadata: { ...base.metadata, deletionTimestamp: '2026-01-04T00:00:00Z' } }),
    ];
    for (const changed of changes) expect(nodeSignature(changed)).to.not.equal(nodeSignature(base));
  });

  it('a secret signature reads its script checksum, pool and role only', () => {
    const secret = (annotations: Record<string, string>, labels: Record<string, string>): SecretObject =>
      ({ metadata: { name: 's', annotations, labels } }) as SecretObject;
    const base = secret(
      { [ANNOTATION.checksumDataScript]: 'a' },
      { [LABEL.workerPool]: 'p', [LABEL.gardenerRole]: 'r' },
    );
    const same = secret(
      { [ANNOTATION.checksumDataScript]: 'a', x: 'y' },
      { [LABEL.workerPool]: 'p', [LABEL.gardenerRole]: 'r', z: '1' },
    );
    expect(secretSignature(same)).to.equal(secretSignature(base));
    const other = secret(
      { [ANNOTATION.checksumDataScript]: 'b' },
      { [LABEL.workerPool]: 'p', [LABEL.gardenerRole]: 'r' },
    );
    expect(secretSignature(other)).to.not.equal(secretSignature(base));
    const pool = secret(
      { [ANNOTATION.checksumDataScript]: 'a' },
      { [LABEL.workerPool]: 'q', [LABEL.gardenerRole]: 'r' },
    );
    expect(secretSignature(pool)).to.not.equal(secretSignature(base));
  });

  it('a Cluster signature is its annotations, none being the same as empty', () => {
    expect(clusterAnnotationsSignature({ metadata: {} })).to.equal(
      clusterAnnotationsSignature({ metadata: { annotations: {} } }),
    );
    expect(clusterAnnotationsSignature({ metadata: { annotations: { a: '1' } } })).to.not.equal(
      clusterAnnotationsSignature({ metadata: { annotations: { a: '2' } } }),
    );
  });
});
