import { expect } from 'chai';
import { parseRfc3339 } from '../../api/index.js';
import { renderNodeConfiguration } from '../../charts/node-configuration.js';
import { RENDER_CORPUS } from './support/corpus.js';
import { Differences } from './support/difference.js';
import {
  expectEveryDeclarationUsed,
  expectEveryDifferenceDeclared,
  useOracle,
} from './support/expect-declared.js';
import { oracle } from './support/oracle.js';
import { decodeCase } from './support/render-case.js';
import { documentsOf, validateAll } from './support/validate-case.js';

describe("compat check 1: what we render decodes strictly with upstream's schemes and passes its validation", () => {
  useOracle();
  const found: Differences['found'] = [];
  let documents = 0;

  before(async function () {
    this.timeout(120_000);
    for (const c of RENDER_CORPUS) {
      const rendered = renderNodeConfiguration({
        cluster: decodeCase(c),
        values: c.values,
        useGardenerNodeAgent: c.useGardenerNodeAgent,
        legacyNodes: c.legacyNodes ?? false,
        now: parseRfc3339('2024-06-01T12:00:00Z'),
      });
      const docs = documentsOf([...rendered.seed, ...rendered.shoot]);
      documents += docs.length;
      const d = new Differences('validate', c.name);
      await validateAll(oracle(), d, docs);
      found.push(...d.found);
    }
  });

  it('covers every kind we render: OSCs, NodeAgentConfigurations, Secrets, ManagedResources, RBAC', () => {
    expect(documents).to.be.greaterThan(150);
  });

  it('every difference is declared in docs/compatibility.md', () => {
    expectEveryDifferenceDeclared('validate', found);
  });

  it('every declaration still matches a difference', () => {
    expectEveryDeclarationUsed('validate', found);
  });
});
