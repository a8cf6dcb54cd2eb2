/** How `gardener-osc plan` says a change rolls out: waves behind the gate, or each node after its delay. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { stringifyYaml } from '../../api/index.js';
import { waveSizes } from '../../cli/plan/rollout.js';
import { planSources } from '../../cli/plan-command.js';
import { EXAMPLE_CLUSTER, EXAMPLE_VALUES } from '../../cli/render-command.js';
import type { PlanView } from '../../node-agent/plan-view/index.js';
import { RolloutSettingsSchema } from '../../seed/manager/config.js';
import { example, gpuMaxPods, pool, values } from './plan-fixtures.js';
import { runMain } from './run-main.js';

const defaults = RolloutSettingsSchema.parse({});

function rolloutOf(next: unknown, rollout = defaults) {
  const { view } = planSources({
    current: { cluster: example(), clusterName: 'a', values: values(), valuesName: 'values' },
    next: { cluster: next, clusterName: 'b', values: values(), valuesName: 'values' },
    rollout,
  });
  return pool(view, 'gpu-worker').rollout!;
}

describe('gardener-osc plan: the rollout', () => {
  it('wave sizes: a canary, then growth up to the cap', () => {
    expect(waveSizes(defaults, 100)).to.deep.equal([1, 2, 4, 8, 16, 25, 25, 19]);
    expect(waveSizes({ ...defaults, canary: 3, growth: 1.5, maxPerWave: 10 }, 30)).to.deep.equal([
      3, 5, 8, 10, 4,
    ]);
    expect(waveSizes(defaults, 1)).to.deep.equal([1]);
  });

  it('with the gate on: waves for the pool maximum, the settle time, the halt', () => {
    const r = rolloutOf(gpuMaxPods());
    expect(r.strategy).to.equal('waves');
    expect(r.text).to.equal(
      "in waves behind a health gate: a canary of 1 node(s) in one zone, then 2× the last wave, at most 25% of the pool (for the pool's maximum of 3: 1, 1, 1); a node passes once it reports success and stays Ready with a fresh Lease for 1m0s; the pool halts at the first failure; within a wave the nodes get the change 1m40s apart (5m0s / 3)",
    );
  });

  it("the Cluster's annotations override the configuration; gate off is each node after its delay", () => {
    const annotated = (annotations: Record<string, string>) => {
      const next = gpuMaxPods() as unknown as { metadata?: Record<string, unknown> };
      next.metadata = { ...next.metadata, annotations };
      return next;
    };
    expect(
      rolloutOf(
        annotated({
          'rollout.node-configuration.gardener.cloud/settle-time': '2m',
          'rollout.node-configuration.gardener.cloud/failures-tolerated': '1',
        }),
      ),
    ).to.include({ strategy: 'waves', settleTime: '2m0s', failuresTolerated: 1 });
    expect(rolloutOf(annotated({ 'rollout.node-configuration.gardener.cloud/gate': 'off' }))).to.include({
      strategy: 'reconciliation-delay',
      maxDelay: '5m0s',
    });
    expect(rolloutOf(gpuMaxPods(), { ...defaults, gate: false }).strategy).to.equal('reconciliation-delay');
  });

  it('--config takes controllers.rollout from the controller-manager configuration', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plan-rollout-'));
    try {
      const config = join(dir, 'config.yaml');
      writeFileSync(
        config,
        stringifyYaml({
          apiVersion: 'node-configuration.gardener.cloud/v1alpha1',
          kind: 'ControllerManagerConfiguration',
          clusterSelector: { matchLabels: { a: 'b' } },
          controllers: { rollout: { gate: false } },
        }),
      );
      const next = join(dir, 'next.yaml');
      writeFileSync(next, stringifyYaml(gpuMaxPods()));
      const r = await runMain([
        'plan',
        '--cluster',
        EXAMPLE_CLUSTER,
        '--next',
        next,
        '--values',
        EXAMPLE_VALUES,
        '--config',
        config,
        '-o',
        'json',
      ]);
      expect(r.code, r.stderr).to.equal(0);
      const view = JSON.parse(r.stdout) as PlanView;
      expect(pool(view, 'gpu-worker').rollout!.strategy).to.equal('reconciliation-delay');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
