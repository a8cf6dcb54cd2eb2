/** Ages as kubectl shows them (apimachinery's HumanDuration): never `6612h`. */
import { expect } from 'chai';
import { humanDuration } from '../../api/human-duration.js';

describe('api: human durations', () => {
  it('matches HumanDuration of k8s.io/apimachinery at each boundary', () => {
    const s = 1000;
    const m = 60 * s;
    const h = 60 * m;
    const d = 24 * h;
    const table: [number, string][] = [
      [-3 * s, '<invalid>'],
      [-1 * s, '0s'],
      [0, '0s'],
      [119 * s, '119s'],
      [120 * s, '2m'],
      [9 * m + 30 * s, '9m30s'],
      [10 * m + 30 * s, '10m'],
      [179 * m, '179m'],
      [3 * h + 5 * m, '3h5m'],
      [8 * h, '8h'],
      [47 * h, '47h'],
      [5 * d + 3 * h, '5d3h'],
      [6612 * h, '275d'],
      [2 * 365 * d + 30 * d, '2y30d'],
      [9 * 365 * d, '9y'],
    ];
    for (const [ms, text] of table) expect(humanDuration(ms), String(ms)).to.equal(text);
  });
});
