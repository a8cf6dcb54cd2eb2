import { expect } from 'chai';
import fc from 'fast-check';
import { formatGoDuration, parseGoDuration } from '../../api/duration.js';

describe('Go durations', () => {
  it('formats as time.Duration.String()', () => {
    const cases: [number, string][] = [
      [0, '0s'],
      [1e9, '1s'],
      [30e9, '30s'],
      [90e9, '1m30s'],
      [300e9, '5m0s'],
      [3600e9, '1h0m0s'],
      [12 * 3600e9, '12h0m0s'],
      [500e6, '500ms'],
      [1500, '1.5µs'],
      [100, '100ns'],
      [4_333_333_333, '4.333333333s'],
      [42_857_142_857, '42.857142857s'],
      [83.5e9, '1m23.5s'],
      [-5e9, '-5s'],
    ];
    for (const [ns, text] of cases) expect(formatGoDuration(ns), text).to.equal(text);
  });

  it('parses as time.ParseDuration', () => {
    expect(parseGoDuration('1h30m')).to.equal(5400e9);
    expect(parseGoDuration('1m23.5s')).to.equal(83.5e9);
    expect(parseGoDuration('0')).to.equal(0);
    expect(parseGoDuration('-1.5h')).to.equal(-5400e9);
    expect(parseGoDuration('2µs')).to.equal(2000);
    expect(parseGoDuration('2us')).to.equal(2000);
    expect(parseGoDuration('.5s')).to.equal(5e8);
    for (const bad of ['', 'fjj123hi', '5', '1x', '.s', '1h-5m', 's'])
      expect(() => parseGoDuration(bad), bad).to.throw(/invalid duration/);
  });

  it('round-trips every duration', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e15, max: 1e15 }),
        (ns) => parseGoDuration(formatGoDuration(ns)) === ns,
      ),
    );
  });
});
