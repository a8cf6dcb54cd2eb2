/** api/reconciliation-delay.ts: the annotation, Go's name order and upstream's formula, in one place. */
import { expect } from 'chai';
import {
  compareGoStrings,
  formatGoDuration,
  parseDelayAnnotation,
  readDelayAnnotation,
  upstreamDelayAt,
  upstreamDelays,
} from '../../api/index.js';

const S = 1e9;
const FIVE_MINUTES = 300 * S;

describe('reconciliation delay: upstream formula (N-TV-33, S-TV-6)', () => {
  it('N-TV-33: min + index × (max − min) / n, truncated to nanoseconds', () => {
    expect([0, 1, 2].map((i) => upstreamDelayAt(i, 3, 0, FIVE_MINUTES))).to.deep.equal([0, 100 * S, 200 * S]);
    expect(upstreamDelayAt(0, 1, 0, FIVE_MINUTES)).to.equal(0);
    expect(upstreamDelayAt(3, 4, 0, FIVE_MINUTES)).to.equal(225 * S);
    expect(upstreamDelayAt(1, 7, 0, FIVE_MINUTES)).to.equal(42_857_142_857);
    expect(formatGoDuration(upstreamDelayAt(1, 7, 0, FIVE_MINUTES))).to.equal('42.857142857s');
  });

  it('S-TV-6: jitter 5s, nodes "1".."5" → (k−1)s; a single node → 0', () => {
    const delays = upstreamDelays(['1', '2', '3', '4', '5'], 0, 5 * S);
    expect(['1', '2', '3', '4', '5'].map((k) => delays.get(k))).to.deep.equal([0, S, 2 * S, 3 * S, 4 * S]);
    expect(upstreamDelays(['1'], 0, 5 * S).get('1')).to.equal(0);
  });

  it('S-TV-6: 15 nodes, node "8" is sorted index 13 → 4333333333ns', () => {
    const names = Array.from({ length: 15 }, (_, i) => String(i + 1));
    const delays = upstreamDelays(names, 0, 5 * S);
    expect(delays.get('8')).to.equal(4_333_333_333);
    expect(delays.get('10')).to.equal(upstreamDelayAt(1, 15, 0, 5 * S));
  });

  it('sorts byte-wise, as Go does', () => {
    const delays = upstreamDelays(['b', 'B', 'a'], 0, 3 * S);
    expect([...delays.keys()]).to.deep.equal(['B', 'a', 'b']);
  });
});

describe('reconciliation delay: Go order and the annotation', () => {
  it("orders names as Go's sort.Strings: by UTF-8 bytes, where UTF-16 code units disagree", () => {
    const astral = '\u{1F600}'; // a surrogate pair in UTF-16 (0xD83D ...), 4 bytes in UTF-8 (0xF0 ...)
    const privateUse = '\uE000'; // one UTF-16 unit 0xE000, 3 bytes in UTF-8 (0xEE ...)
    expect([astral, privateUse].sort()).to.deep.equal([astral, privateUse]); // JavaScript: UTF-16 order
    expect([astral, privateUse].sort(compareGoStrings)).to.deep.equal([privateUse, astral]);
    expect(['node-b', 'node-a', 'Node-c'].sort(compareGoStrings)).to.deep.equal([
      'Node-c',
      'node-a',
      'node-b',
    ]);
    expect(compareGoStrings('a', 'ab')).to.be.below(0);
  });

  it('reads the annotation as a non-negative Go duration, saying why it cannot', () => {
    expect(readDelayAnnotation('1m23.5s')).to.deep.equal({ ok: true, nanos: 83.5 * S });
    expect(readDelayAnnotation('0s')).to.deep.equal({ ok: true, nanos: 0 });
    expect(readDelayAnnotation(undefined)).to.deep.equal({
      ok: false,
      reason: 'annotation node-agent.gardener.cloud/reconciliation-delay is missing',
    });
    expect(readDelayAnnotation('-5s')).to.deep.equal({
      ok: false,
      reason: 'annotation node-agent.gardener.cloud/reconciliation-delay is negative: -5s',
    });
    expect(readDelayAnnotation('soon')).to.deep.include({ ok: false });
    expect((readDelayAnnotation('soon') as { reason: string }).reason).to.match(
      /is invalid: time: invalid duration "soon"/,
    );
    expect(parseDelayAnnotation('8m')).to.equal(480 * S);
    expect(parseDelayAnnotation('-1s')).to.equal(undefined);
    expect(formatGoDuration(parseDelayAnnotation('4.333333333s')!)).to.equal('4.333333333s');
  });
});
