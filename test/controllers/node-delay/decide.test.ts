import { expect } from 'chai';
import { formatGoDuration, parseGoDuration } from '../../../api/index.js';
import {
  assignDelays,
  type DelayAssignment,
  DelayInputError,
  type DelayNode,
  fewestSameZoneNeighbours,
  interleaveByZone,
  longestZoneRun,
  mostOverlapping,
  sameZoneNeighbours,
  smallestGap,
} from '../../../controllers/node-delay/index.js';

const S = 1e9;
const FIVE_MINUTES = 300 * S;

/** `"a:z1 b:z2"` → nodes a (zone z1), b (zone z2). */
function nodes(spec: string): DelayNode[] {
  return spec.split(' ').map((item) => {
    const [name, zone] = item.split(':');
    return { name: name!, zone };
  });
}

/** The assignment as `name=delay` in delay order. */
function text(result: DelayAssignment): string {
  return [...result.delays].map(([name, delay]) => `${name}=${formatGoDuration(delay)}`).join(' ');
}

describe('node-delay: assignment, literal vectors', () => {
  it('no nodes → nothing; one node → the minimum', () => {
    expect(text(assignDelays({ nodes: [], minDelay: 0, maxDelay: FIVE_MINUTES }))).to.equal('');
    expect(text(assignDelays({ nodes: nodes('a:z'), minDelay: 30 * S, maxDelay: FIVE_MINUTES }))).to.equal(
      'a=30s',
    );
  });

  it('first assignment: the first n slots of 2^k in van der Corput order, zones interleaved', () => {
    const result = assignDelays({
      nodes: nodes('a:z1 b:z1 c:z1 d:z2 e:z2 f:z3'),
      minDelay: 0,
      maxDelay: FIVE_MINUTES,
    });
    // 6 nodes → 8 slots of 37.5 s; slots 0 4 2 6 1 5 → 0 1 2 4 5 6; zones z1 z2 z1 z3 z2 z1.
    expect(text(result)).to.equal('a=0s d=37.5s b=1m15s f=2m30s e=3m7.5s c=3m45s');
    expect(result.slots).to.equal(8);
    expect(result.patches).to.have.length(6);
    expect(result.events).to.equal(6);
  });

  it('joins keep every other delay; the grid doubles without moving anyone', () => {
    const four = assignDelays({ nodes: nodes('n1:a n2:b n3:a n4:b'), minDelay: 0, maxDelay: FIVE_MINUTES });
    expect(text(four)).to.equal('n1=0s n2=1m15s n3=2m30s n4=3m45s');
    const five = assignDelays({
      nodes: nodes('n1:a n2:b n3:a n4:b n5:c'),
      previous: four.delays,
      minDelay: 0,
      maxDelay: FIVE_MINUTES,
    });
    expect(text(five)).to.equal('n1=0s n5=37.5s n2=1m15s n3=2m30s n4=3m45s');
    expect(five.moved).to.deep.equal([]);
    // n6 (zone a) takes the target's only hole (slot 5 of 8) between n3 (a) and n4 (b); swapping it
    // with n4 keeps zone a apart, one change to another node.
    const six = assignDelays({
      nodes: nodes('n1:a n2:b n3:a n4:b n5:c n6:a'),
      previous: five.delays,
      minDelay: 0,
      maxDelay: FIVE_MINUTES,
    });
    expect(text(six)).to.equal('n1=0s n5=37.5s n2=1m15s n3=2m30s n4=3m7.5s n6=3m45s');
    expect(six.moved).to.deep.equal(['n4']);
  });

  it('a leave re-spreads the node on the last target slot into its hole; halving re-places only odd slots', () => {
    const six = new Map(
      Object.entries({ n1: '0s', n5: '37.5s', n2: '1m15s', n3: '2m30s', n4: '3m7.5s', n6: '3m45s' }).map(
        ([k, v]) => [k, parseGoDuration(v)] as const,
      ),
    );
    // n5 leaves slot 1; the target of 5 on 8 slots is 0 4 2 6 1, so n4 (slot 5) moves into the hole;
    // b b next to each other then cost n4 and n1 a swap.
    const five = assignDelays({
      nodes: nodes('n1:a n2:b n3:a n4:b n6:a'),
      previous: six,
      minDelay: 0,
      maxDelay: FIVE_MINUTES,
    });
    expect(text(five)).to.equal('n4=0s n1=37.5s n2=1m15s n3=2m30s n6=3m45s');
    expect(five.moved).to.deep.equal(['n4', 'n1']);
    const four = assignDelays({
      nodes: nodes('n1:a n2:b n4:b n6:a'),
      previous: five.delays,
      minDelay: 0,
      maxDelay: FIVE_MINUTES,
    });
    // 4 nodes → 4 slots: n1 (slot 1 of 8) is off the halved grid and fills its free slot 2 of 4; n2
    // then swaps with it to keep zone b apart.
    expect(text(four)).to.equal('n4=0s n1=1m15s n2=2m30s n6=3m45s');
    expect(four.moved).to.deep.equal(['n1', 'n2']);
  });

  it('a leave is re-spread into the target; with no event nothing moves (2 changes per event at most)', () => {
    // a1 b a2 c on 4 slots; b leaves → 3 nodes, whose target is slots 0 2 1: c moves into b's slot.
    const previous = new Map([
      ['a1', 0],
      ['b', 75 * S],
      ['a2', 150 * S],
      ['c', 225 * S],
    ]);
    const after = assignDelays({
      nodes: nodes('a1:a a2:a c:c'),
      previous,
      minDelay: 0,
      maxDelay: FIVE_MINUTES,
    });
    expect(text(after)).to.equal('a1=0s c=1m15s a2=2m30s');
    expect(after.events).to.equal(1);
    expect(after.moved).to.deep.equal(['c']);
    // Without an event (b already gone from previous) nothing is re-spread: the output is a fixed point.
    const still = assignDelays({
      nodes: nodes('a1:a a2:a c:c'),
      previous: new Map([...previous].filter(([name]) => name !== 'b')),
      minDelay: 0,
      maxDelay: FIVE_MINUTES,
    });
    expect(text(still)).to.equal('a1=0s a2=2m30s c=3m45s');
  });

  it('the nodes annotations are the previous assignment; off-grid values (upstream formula) are replaced', () => {
    const result = assignDelays({
      nodes: [
        { name: 'x', annotation: '0s' },
        { name: 'y', annotation: '1m40s' },
        { name: 'z', annotation: '3m20s' },
      ],
      minDelay: 0,
      maxDelay: FIVE_MINUTES,
    });
    expect(text(result)).to.equal('x=0s z=1m15s y=2m30s');
    expect(result.moved).to.deep.equal(['z', 'y']);
    expect(result.patches).to.deep.equal(['z', 'y']);
    expect(result.events).to.equal(0);
  });

  it('a valid annotation is kept; an unparsable one makes the node new; `previous` wins over the annotation', () => {
    const result = assignDelays({
      nodes: [
        { name: 'a', zone: 'z1', annotation: '3m45s' },
        { name: 'b', zone: 'z2', annotation: 'fjj123hi' },
        { name: 'c', zone: 'z1', annotation: '0s' },
        { name: 'd', zone: 'z2', annotation: '0s' },
      ],
      previous: new Map([['d', 75 * S]]),
      minDelay: 0,
      maxDelay: FIVE_MINUTES,
    });
    // b lands between d and a (both free slots' neighbours); then a swaps with b to keep z2 apart.
    expect(text(result)).to.equal('c=0s d=1m15s a=2m30s b=3m45s');
    expect(result.events).to.equal(1);
    // d's annotation (0s) differs from its result, so it is patched although it did not move.
    expect(result.patches).to.deep.equal(['d', 'a', 'b']);
    expect(result.moved).to.deep.equal(['a']);
  });

  it('is idempotent: its own output as previous (or as annotations) changes nothing', () => {
    const input = nodes('a:z1 b:z2 c:z3 d:z1 e:z2 f:z3 g:z1');
    const first = assignDelays({ nodes: input, minDelay: 0, maxDelay: FIVE_MINUTES });
    const again = assignDelays({ nodes: input, previous: first.delays, minDelay: 0, maxDelay: FIVE_MINUTES });
    expect(text(again)).to.equal(text(first));
    expect(again.moved).to.deep.equal([]);
    const annotated = input.map((n) => ({ ...n, annotation: formatGoDuration(first.delays.get(n.name)!) }));
    const fromAnnotations = assignDelays({ nodes: annotated, minDelay: 0, maxDelay: FIVE_MINUTES });
    expect(text(fromAnnotations)).to.equal(text(first));
    expect(fromAnnotations.patches).to.deep.equal([]);
  });

  it('a zero window gives every node the minimum', () => {
    expect(text(assignDelays({ nodes: nodes('a:z b:z c:y'), minDelay: 60 * S, maxDelay: 60 * S }))).to.equal(
      'a=1m0s b=1m0s c=1m0s',
    );
  });

  it('rejects a bad window and duplicate names, naming the field', () => {
    expect(() => assignDelays({ nodes: [], minDelay: -1, maxDelay: 0 })).to.throw(
      DelayInputError,
      /minDelay/,
    );
    expect(() => assignDelays({ nodes: [], minDelay: 2, maxDelay: 1 })).to.throw(DelayInputError, /maxDelay/);
    expect(() => assignDelays({ nodes: nodes('a b a'), minDelay: 0, maxDelay: 1 })).to.throw(
      DelayInputError,
      /nodes\[2\]\.name: duplicate node "a"/,
    );
  });
});

describe('node-delay: zone interleaving', () => {
  it('round robin for equal zones, the least recently used zone breaking ties', () => {
    const order = interleaveByZone(nodes('a1:a a2:a b1:b b2:b c1:c c2:c'));
    expect(order.map((n) => n.name)).to.deep.equal(['a1', 'b1', 'c1', 'a2', 'b2', 'c2']);
  });

  it('the fewest same-zone neighbours when one zone dominates', () => {
    const order = interleaveByZone(nodes('a1:a a2:a a3:a a4:a a5:a b1:b'));
    expect(order.map((n) => n.zone).join('')).to.equal('abaaaa');
    const placed = order.map((n, i) => ({ ...n, delay: i }));
    expect(sameZoneNeighbours(placed)).to.equal(fewestSameZoneNeighbours(order.map((n) => n.zone)));
  });
});

describe('node-delay: measures', () => {
  const placed = [
    { name: 'a', zone: 'z1', delay: 0 },
    { name: 'b', zone: 'z1', delay: 2 * S },
    { name: 'c', zone: 'z1', delay: 3 * S },
    { name: 'd', zone: 'z2', delay: 10 * S },
    { name: 'e', delay: 11 * S },
  ];

  it('smallest gap, same-zone neighbours, longest run (unknown zones never match)', () => {
    expect(smallestGap(placed)).to.equal(S);
    expect(sameZoneNeighbours(placed)).to.equal(2);
    expect(longestZoneRun(placed)).to.equal(3);
    expect(fewestSameZoneNeighbours(['z1', 'z1', 'z1', 'z2', undefined])).to.equal(0);
    expect(fewestSameZoneNeighbours(['z1', 'z1', 'z1', 'z2'])).to.equal(1);
  });

  it('most overlapping restarts of a given length', () => {
    expect(mostOverlapping([0, 2 * S, 3 * S, 10 * S, 11 * S], 5 * S)).to.equal(3);
    expect(mostOverlapping([0, 5 * S], 5 * S)).to.equal(1);
    expect(mostOverlapping([], 5 * S)).to.equal(0);
  });
});
