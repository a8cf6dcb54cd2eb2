import { expect } from 'chai';
import { parseGoDuration } from '../../../api/index.js';
import { ReconciliationDelay } from '../../../node-agent/controllers/operatingsystemconfig/reconciliation-delay.js';

function node(
  name: string,
  delay?: string,
): { metadata: { name: string; annotations: Record<string, string> } } {
  const annotations: Record<string, string> = {};
  if (delay !== undefined) annotations['node-agent.gardener.cloud/reconciliation-delay'] = delay;
  return { metadata: { name, annotations } };
}

// Upstream: gardener v1.91.4 pkg/nodeagent/controller/operatingsystemconfig/add.go.
describe('node agent reconciliation delay', () => {
  it('N-TV-05: from the annotation, falling back to the last valid value', () => {
    const d = new ReconciliationDelay();
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

  it('N13: 0 when no valid annotation was ever seen (as v1.94+), saying why', () => {
    expect(new ReconciliationDelay().compute(node('3'))).to.deep.equal({
      nanos: 0,
      source: 'none-seen',
      reason: 'annotation node-agent.gardener.cloud/reconciliation-delay is missing',
    });
    expect(new ReconciliationDelay().compute(node('3', '-1s'))).to.deep.include({
      nanos: 0,
      source: 'none-seen',
    });
  });
});
