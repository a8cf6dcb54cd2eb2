/**
 * The agent wraps its systemd twice (unit job events, restart metrics). Drift detection asks the
 * wrapped systemd whether a unit is enabled (`unitFileState`) and the SystemdUnitsReady check when
 * it changed state (`unitActivity`): a wrapper that drops an optional query silently turns that
 * check off, which is what happened to enablement drift in the running agent.
 */
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { recordingUnitEvents } from '../../../node-agent/agent/unit-events.js';
import { agentMetrics, countingRestarts } from '../../../node-agent/controllers/agent-metrics.js';
import type { Systemd } from '../../../node-agent/systemd/systemd.js';

describe("the agent's systemd wrappers keep every query of the systemd they wrap", () => {
  const inner = (): Systemd => {
    const memory = new MemorySystemd();
    return Object.assign(memory, {
      unitActivity: async () => ({ stateChangeTimestampMonotonic: 7, triggeredBy: ['x.timer'] }),
    }) as unknown as Systemd;
  };
  const wrappers: [string, (s: Systemd) => Systemd][] = [
    ['unit job events', (s) => recordingUnitEvents(s, { event: async () => undefined }, () => undefined)],
    ['restart metrics', (s) => countingRestarts(s, agentMetrics(new Registry()))],
    [
      'both, as the agent stacks them',
      (s) =>
        countingRestarts(
          recordingUnitEvents(s, { event: async () => undefined }, () => undefined),
          agentMetrics(new Registry()),
        ),
    ],
  ];

  for (const [name, wrap] of wrappers)
    it(`${name}: unitFileState and unitActivity answer as the wrapped systemd does`, async () => {
      const base = inner();
      await base.enable(['a.service']);
      const wrapped = wrap(base);
      expect(wrapped.unitFileState, 'unitFileState').to.be.a('function');
      expect(await wrapped.unitFileState!('a.service')).to.equal(await base.unitFileState!('a.service'));
      expect(wrapped.unitActivity, 'unitActivity').to.be.a('function');
      expect(await wrapped.unitActivity!('a.service')).to.deep.equal(await base.unitActivity!('a.service'));
    });

  it('a systemd without the optional queries stays without them (drift then skips enablement)', () => {
    const memory = new MemorySystemd();
    const bare: Systemd = {
      unitStatus: (u) => memory.unitStatus(u),
      daemonReload: () => memory.daemonReload(),
      enable: (u) => memory.enable(u),
      disable: (u) => memory.disable(u),
      start: (u) => memory.start(u),
      stop: (u) => memory.stop(u),
      restart: (u) => memory.restart(u),
      reload: (u) => memory.reload(u),
    };
    const wrapped = recordingUnitEvents(bare, { event: async () => undefined }, () => undefined);
    expect(wrapped.unitFileState).to.equal(undefined);
    expect(wrapped.unitActivity).to.equal(undefined);
  });
});
