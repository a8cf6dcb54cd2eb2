import { expect } from 'chai';
import {
  DEFAULT_DRIFT_CHECK_INTERVAL_MS,
  driftCheckInterval,
} from '../../../../node-agent/controllers/drift/drift-interval.js';

describe('node-agent drift monitor interval: on by default on a node, off in a tree elsewhere', () => {
  const cases: [string, Parameters<typeof driftCheckInterval>[0], number | undefined][] = [
    ['a node (root /), no flag: every minute', { root: '/' }, DEFAULT_DRIFT_CHECK_INTERVAL_MS],
    ['a node, --drift-check-interval 5s', { root: '/', driftCheckIntervalMs: 5_000 }, 5_000],
    ['a node, --drift-check-interval 0s: off', { root: '/', driftCheckIntervalMs: false }, undefined],
    ['a tree in a temp dir, no flag: off', { root: '/tmp/node-a' }, undefined],
    ['a tree, --drift-check-interval 2s', { root: '/tmp/node-a', driftCheckIntervalMs: 2_000 }, 2_000],
  ];
  for (const [name, options, expected] of cases)
    it(name, () => expect(driftCheckInterval(options)).to.equal(expected));

  it('the default is one minute', () => expect(DEFAULT_DRIFT_CHECK_INTERVAL_MS).to.equal(60_000));
});
