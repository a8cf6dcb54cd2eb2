/** An OSC is rewritten only when what a node must run changed (docs/compatibility.md S2). */
import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../../api/index.js';
import {
  canonicalJson,
  sameDesiredState,
} from '../../../controllers/operatingsystemconfig/same-desired-state.js';

const osc = (
  patch: Partial<OperatingSystemConfig['spec']> = {},
  labels = { 'worker.gardener.cloud/pool': 'a' },
) =>
  ({
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: {
      name: 'x',
      namespace: 'n',
      labels,
      annotations: { 'gardener.cloud/timestamp': '2024-01-01T00:00:00Z' },
    },
    spec: {
      type: 'gardenlinux',
      purpose: 'reconcile',
      units: [{ name: 'a.service', content: 'x' }],
      files: [],
      ...patch,
    },
  }) as OperatingSystemConfig;

describe('same desired state', () => {
  it('ignores key order, undefined members, annotations and status', () => {
    expect(canonicalJson({ b: 1, a: { d: undefined, c: [2, 1] } })).to.equal('{"a":{"c":[2,1]},"b":1}');
    const live = {
      ...osc(),
      status: { observedGeneration: 3 },
      metadata: { ...osc().metadata, annotations: {} },
    };
    expect(sameDesiredState(live as OperatingSystemConfig, osc())).to.equal(true);
  });

  it('differs on a spec change, a reordered unit list, a pool label change or a pending deletion', () => {
    expect(sameDesiredState(osc({ type: 'ubuntu' }), osc())).to.equal(false);
    const two = [
      { name: 'a.service', content: 'x' },
      { name: 'b.service', content: 'y' },
    ];
    expect(sameDesiredState(osc({ units: [...two].reverse() }), osc({ units: two }))).to.equal(false);
    expect(sameDesiredState(osc({}, { 'worker.gardener.cloud/pool': 'b' }), osc())).to.equal(false);
    const deleting = { ...osc(), metadata: { ...osc().metadata, deletionTimestamp: '2024-01-01T00:00:00Z' } };
    expect(sameDesiredState(deleting as OperatingSystemConfig, osc())).to.equal(false);
  });
});
