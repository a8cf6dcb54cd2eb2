/** Which of our controllers act for a Cluster: in v1.150.0 gardener-resource-manager does their work. */
import { expect } from 'chai';
import { GARDENER_VERSION_ANNOTATION } from '../../api/index.js';
import { actsForCluster } from '../../controllers/left-to-resource-manager.js';

const annotated = (version: string) => ({ [GARDENER_VERSION_ANNOTATION]: version });

describe('controllers left to gardener-resource-manager in v1.150.0', () => {
  const rows: [string, Record<string, string> | undefined, 'v1.91.4' | 'v1.150.0', boolean, boolean][] = [
    // what, the Cluster's annotations, gardenerVersion, inV150Mode, acts
    ['v1.91.4 by default', undefined, 'v1.91.4', false, true],
    ['v1.91.4 by default, switch on', undefined, 'v1.91.4', true, true],
    ['v1.150.0 by default', undefined, 'v1.150.0', false, false],
    ['v1.150.0 by default, switch on', { other: 'x' }, 'v1.150.0', true, true],
    ['v1.150.0 by annotation over a v1.91.4 default', annotated('v1.150.0'), 'v1.91.4', false, false],
    ['v1.150.0 by annotation, switch on', annotated('v1.150.0'), 'v1.91.4', true, true],
    ['v1.91.4 by annotation over a v1.150.0 default', annotated('v1.91.4'), 'v1.150.0', false, true],
    ['an unknown contract', annotated('v1.149.3'), 'v1.91.4', false, false],
    ['an unknown contract, switch on', annotated('v1.149.3'), 'v1.91.4', true, false],
  ];
  for (const [what, annotations, gardenerVersion, inV150Mode, acts] of rows)
    it(`${what}: ${acts ? 'acts' : 'stays out'}`, () => {
      expect(actsForCluster(annotations, { gardenerVersion, inV150Mode })).to.equal(acts);
    });
});
