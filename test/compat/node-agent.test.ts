import { expect } from 'chai';
import { agentSequences } from './support/agent-sequences.js';
import { RENDER_CORPUS } from './support/corpus.js';
import { Differences } from './support/difference.js';
import {
  expectEveryDeclarationUsed,
  expectEveryDifferenceDeclared,
  useOracle,
} from './support/expect-declared.js';
import { runSequence } from './support/node-agent-case.js';
import { oracle } from './support/oracle.js';

describe("compat check 3: upstream's node-agent OSC reconciler and our `apply` on the same OSC sequences", () => {
  useOracle();
  const found: Differences['found'] = [];
  let steps = 0;

  before(async function () {
    this.timeout(180_000);
    for (const sequence of await agentSequences(oracle(), RENDER_CORPUS[0]!)) {
      steps += sequence.steps.length;
      const d = new Differences('node-agent', sequence.name);
      await runSequence(oracle(), d, sequence);
      found.push(...d.found);
    }
  });

  it('applies every step on both sides', () => {
    expect(steps).to.be.greaterThan(8);
    expect(found.filter((d) => d.field === 'result')).to.deep.equal([]);
  });

  it('writes no file with a special mode bit, as upstream (Go os.FileMode)', () => {
    expect(found.filter((d) => d.field === 'special mode bits')).to.deep.equal([]);
  });

  it('every difference is declared in docs/compatibility.md', () => {
    expectEveryDifferenceDeclared('node-agent', found);
  });

  it('every declaration still matches a difference', () => {
    expectEveryDeclarationUsed('node-agent', found);
  });
});

describe('compat check 3 with least disruption, the default of our agent', () => {
  useOracle();
  const found: Differences['found'] = [];

  before(async function () {
    this.timeout(180_000);
    for (const sequence of await agentSequences(oracle(), RENDER_CORPUS[0]!)) {
      const d = new Differences('node-agent-defaults', sequence.name);
      await runSequence(oracle(), d, sequence, 'defaults');
      found.push(...d.found);
    }
  });

  it('skips exactly the restarts of a unit change systemd would not act on (N33)', () => {
    const skipped = found.flatMap((d) => {
      if (!d.field.startsWith('systemd calls')) return [];
      const ours = d.ours as string[];
      const missing = (d.upstream as string[]).filter((c) => c.startsWith('restart ') && !ours.includes(c));
      return missing.length > 0 ? [`${d.case}: ${d.subject}: ${missing.join(', ')}`] : [];
    });
    expect(skipped).to.deep.equal([
      'changes least disruption decides: step 2 (a comment in the unit): restart svc.service',
      'changes least disruption decides: step 3 (only its Description): restart svc.service',
    ]);
  });

  it('every difference is declared in docs/compatibility.md, N33 for the skipped restarts', () => {
    expectEveryDifferenceDeclared('node-agent-defaults', found);
  });

  it('every declaration still matches a difference', () => {
    expectEveryDeclarationUsed('node-agent-defaults', found);
  });
});
