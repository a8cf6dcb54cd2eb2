import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import {
  CONTAINERD_17_DEFAULT,
  CONTAINERD_22_DEFAULT,
} from '../../../hack/node-agent-doubles/fake-containerd.js';
import { agentSequenceV150 } from '../support/agent-sequences-v150.js';
import { Differences } from '../support/difference.js';
import { expectEveryDeclarationUsed, expectEveryDifferenceDeclared } from '../support/expect-declared.js';
import { type NodeContainerd, runSequenceV150, runSwitch } from '../support/node-agent-case-v150.js';
import { oracle150 } from '../support/oracle-150.js';
import { useOracle150 } from '../support/use-oracle-150.js';

/** A registry host answering every request, for the readiness probes of both agents. */
function useRegistryHost(): () => string {
  const server = createServer((_req, res) => res.end());
  before(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const CONTAINERDS: NodeContainerd[] = [
  { name: 'containerd 1.7 (config version 2)', defaultConfig: CONTAINERD_17_DEFAULT, version: '1.7.23' },
  { name: 'containerd 2.2 (config version 3)', defaultConfig: CONTAINERD_22_DEFAULT, version: '2.2.0' },
];

describe("v1.150.0 node agent: upstream's OSC reconciler and our apply on the same OSC sequences", () => {
  useOracle150();
  const registryUrl = useRegistryHost();
  const found: Differences['found'] = [];
  let steps = 0;

  before(async function () {
    this.timeout(180_000);
    const sequence = await agentSequenceV150(oracle150(), registryUrl());
    for (const containerd of CONTAINERDS) {
      steps += sequence.steps.length;
      const d = new Differences('node-agent-v1.150', sequence.name);
      await runSequenceV150(oracle150(), d, sequence, containerd);
      found.push(...d.found);
    }
  });

  it('applies every step on both sides', () => {
    expect(steps).to.be.greaterThan(16);
    expect(found.filter((d) => d.field === 'result')).to.deep.equal([]);
  });

  it('writes the same config.toml and hosts.toml bytes as upstream', () => {
    expect(
      found.filter((d) => /^file \/etc\/containerd\//.test(d.item)),
      'containerd files',
    ).to.deep.equal([]);
  });

  it('restarts itself exactly when upstream does', () => {
    expect(found.filter((d) => d.field === 'node agent restarts itself')).to.deep.equal([]);
  });

  it('every difference is declared in docs/compatibility.md', () => {
    expectEveryDifferenceDeclared('node-agent-v1.150', found);
  });

  it('every declaration still matches a difference', () => {
    expectEveryDeclarationUsed('node-agent-v1.150', found);
  });
});

describe("v1.150.0 node agent: a node switching from upstream's agent to ours and back", () => {
  useOracle150();
  const registryUrl = useRegistryHost();
  const withoutReloads = (calls: readonly string[]) => calls.filter((c) => c !== 'daemon-reload').sort();

  for (const containerd of CONTAINERDS) {
    it(`${containerd.name}: each reads what the other left, nothing is lost or restarted twice`, async function () {
      this.timeout(120_000);
      const sequence = await agentSequenceV150(oracle150(), registryUrl());
      const first = sequence.steps[0]!.osc;
      // the extension unit step: a unit, its drop-in, a file, registries and plugins on top
      const second = sequence.steps.find((s) => s.name.startsWith('an extension unit'))!.osc;
      const run = await runSwitch(oracle150(), first, second, containerd);

      expect(run.oursSameAgain, 'ours on the OSC upstream applied').to.deep.equal({
        outcome: 'up-to-date',
        calls: [],
      });
      expect(run.oursNext.outcome).to.equal('applied');
      expect(withoutReloads(run.oursNext.calls), 'ours takes over: what upstream alone does').to.deep.equal(
        withoutReloads(run.upstreamAlone),
      );
      const restarts = run.oursNext.calls.filter((c) => c.startsWith('restart '));
      expect(new Set(restarts).size).to.equal(restarts.length);
      expect(run.upstreamChangesLeft, "upstream's computed changes, done, are removed").to.equal(false);
      expect(run.upstreamBack, 'upstream back on the node ours left: nothing to do').to.deep.equal({
        calls: ['daemon-reload'],
        restarts: false,
      });
    });
  }
});
