/**
 * explainPlan gives every unit the plan acts on its causes, and no other unit: checked on N-TV-20
 * (every kind of cause) and on generated OSC pairs against computePlan itself.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { oscV1, oscV1WithNodeAgent, oscV2 } from '../../../hack/landscape/ntv18-fixtures.js';
import { computePlan } from '../../../node-agent/planner/compute-plan.js';
import { explainPlan } from '../../../node-agent/planner/explain.js';
import { oscArbitrary } from '../support/osc-arbitrary.js';

describe('node-agent planner: explainPlan', () => {
  it('N-TV-20: names the file, unit file, drop-in or setting behind each action', () => {
    const plan = computePlan(oscV1(), oscV2());
    const explained = explainPlan(oscV1(), oscV2(), plan);
    expect(Object.fromEntries(explained.map((u) => [u.name, [u.action, u.reasons]]))).to.deep.equal({
      unit2: [
        'restart',
        [
          { kind: 'setting', field: 'enable', from: false, to: true },
          { kind: 'setting', field: 'command', from: 'stop', to: 'start' },
          { kind: 'drop-in', name: 'dropdropdrop', change: 'added' },
        ],
      ],
      // unit5 merges unit5b's drop-in; v2 keeps only drop2
      unit5: [
        'restart',
        [
          { kind: 'drop-in', name: 'drop1', change: 'removed' },
          { kind: 'drop-in', name: 'extensionsdrop', change: 'removed' },
        ],
      ],
      unit6: ['restart', [{ kind: 'setting', field: 'filePaths', from: ['/third/file'] }]],
      unit7: ['restart', [{ kind: 'file', path: '/changed/file', change: 'changed' }]],
      unit4: [
        'stop',
        [
          { kind: 'setting', field: 'enable', from: true, to: false },
          { kind: 'drop-in', name: 'drop', change: 'removed' },
        ],
      ],
      unit8: ['restart', [{ kind: 'file', path: '/sixth/file', change: 'changed' }]],
      unit9: ['restart', [{ kind: 'file', path: '/seventh/file', change: 'changed' }]],
      unit1: ['remove', [{ kind: 'unit-removed' }]],
    });
  });

  it('a first apply starts new units and restarts the agent itself', () => {
    const osc = oscV1WithNodeAgent();
    const explained = explainPlan(undefined, osc, computePlan(undefined, osc));
    const agent = explained.find((u) => u.name === 'gardener-node-agent.service')!;
    expect(agent).to.deep.equal({
      name: 'gardener-node-agent.service',
      action: 'restart',
      nodeAgent: true,
      reasons: [{ kind: 'first-apply' }],
    });
    expect(explained.find((u) => u.name === 'unit1')).to.include({ action: 'start' });
    expect(explained.find((u) => u.name === 'unit2')).to.include({ action: 'stop' });
  });

  // one or two unit names, so that the same unit differs in one field far more often
  for (const names of [undefined, ['a.service'], ['a.service', 'gardener-node-agent.service']]) {
    it(`on any pair of OSCs (${names?.join(', ') ?? 'five unit names'}): exactly the units the plan acts on, each with a cause the diff can name`, () => {
      fc.assert(
        fc.property(
          fc.option(oscArbitrary(names), { nil: undefined }),
          oscArbitrary(names),
          (previous, next) => {
            const plan = computePlan(previous, next);
            const explained = explainPlan(previous, next, plan);
            const acted = new Set([
              ...plan.units.write.map((u) => u.name),
              ...plan.units.delete.map((u) => u.name),
            ]);
            expect(new Set(explained.map((u) => u.name))).to.deep.equal(acted);
            for (const unit of explained) {
              expect(unit.reasons, unit.name).not.to.be.empty;
              expect(
                unit.reasons.map((r) => r.kind),
                unit.name,
              ).not.to.include('interrupted');
              const command = plan.commands.find((c) => c.unit === unit.name);
              if (command?.command === 'stop') expect(unit.action).to.equal('stop');
              if (unit.nodeAgent) expect(plan.mustRestartNodeAgent).to.equal(true);
            }
          },
        ),
        { numRuns: 500 },
      );
    });
  }
});
