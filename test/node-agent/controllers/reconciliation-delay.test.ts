import { expect } from 'chai';
import { parseGoDuration } from '../../../api/index.js';
import {
  indexDelay,
  ReconciliationDelay,
} from '../../../node-agent/controllers/operatingsystemconfig/reconciliation-delay.js';

function node(
  name: string,
  delay?: string,
): { metadata: { name: string; annotations: Record<string, string> } } {
  const annotations: Record<string, string> = {};
  if (delay !== undefined) annotations['node-agent.gardener.cloud/reconciliation-delay'] = delay;
  return { metadata: { name, annotations } };
}

describe('node agent reconciliation delay (node-side §7.2)', () => {
  it('N-TV-05: from the annotation, falling back to the last valid value', () => {
    const d = new ReconciliationDelay(0);
    expect(d.compute(node('')).nanos).to.equal(0);
    expect(d.compute(node('n')).nanos, 'no annotation, no previous').to.equal(0);
    expect(d.compute(node('n', 'fjj123hi')).nanos, 'invalid, no previous').to.equal(0);
    expect(d.compute(node('n', '8m'))).to.deep.equal({ nanos: parseGoDuration('8m'), source: 'annotation' });
    expect(d.compute(node('n'))).to.deep.include({ nanos: parseGoDuration('8m'), source: 'last-valid' });
    expect(d.compute(node('n', '13s')).nanos).to.equal(13e9);
    expect(d.compute(node('n', 'fjj123hi'))).to.deep.include({ nanos: 13e9, source: 'last-valid' });
    expect(d.compute(node('n', '12h')).nanos).to.equal(parseGoDuration('12h'));
    expect(d.compute(node('n', '-5s'))).to.deep.include({
      nanos: parseGoDuration('12h'),
      source: 'last-valid',
    });
  });

  it('uses the index formula with syncJitterPeriod when no valid annotation was ever seen (upstream: 0)', () => {
    const d = new ReconciliationDelay(5e9);
    const names = ['1', '2', '3', '4', '5'];
    expect(d.compute(node('3'), () => names)).to.deep.include({ nanos: 2e9, source: 'index-formula' });
  });

  it('S-TV-6 and N-TV-33: the index formula', () => {
    const five = ['1', '2', '3', '4', '5'];
    for (const k of [1, 2, 3, 4, 5]) expect(indexDelay(String(k), five, 0, 5e9)).to.equal((k - 1) * 1e9);
    const fifteen = Array.from({ length: 15 }, (_, i) => String(i + 1));
    expect(indexDelay('8', fifteen, 0, 5e9)).to.equal(4_333_333_333);
    expect(indexDelay('', fifteen, 0, 5e9)).to.equal(0);
    expect(indexDelay('1', ['1'], 0, 5e9)).to.equal(0);
    const n = (count: number) => Array.from({ length: count }, (_, i) => `node-${i}`);
    expect(n(3).map((name) => indexDelay(name, n(3), 0, 300e9))).to.deep.equal([0, 100e9, 200e9]);
    expect(indexDelay('node-3', n(4), 0, 300e9)).to.equal(225e9);
    expect(indexDelay('node-1', n(7), 0, 300e9)).to.equal(42_857_142_857);
  });
});
