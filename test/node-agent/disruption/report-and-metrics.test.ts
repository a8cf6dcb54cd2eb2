import { expect } from 'chai';
import { Registry } from 'prom-client';
import { type OperatingSystemConfig, type OscFile, sha256Hex } from '../../../api/index.js';
import { yamlOf } from '../../../hack/landscape/ntv18-fixtures.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import {
  type AgentMetrics,
  agentMetrics,
  countingRestarts,
} from '../../../node-agent/controllers/agent-metrics.js';
import { OscReconciler } from '../../../node-agent/controllers/operatingsystemconfig/reconciler.js';
import type { UnitDisruption } from '../../../node-agent/planner/decide-disruption.js';
import type { DisruptionPolicy } from '../../../node-agent/planner/disruption-policy.js';
import { avoidedRestarts } from '../../../node-agent/planner/restarts-avoided.js';
import { DirectoryImageExtractor } from '../../../node-agent/registry/directory-extractor.js';
import type { EventRecorder } from '../../../runtime/events.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { silentLogger } from '../../../runtime/logging.js';
import { useTempDirs } from '../support/harness.js';

const file = (path: string, data: string): OscFile => ({ path, content: { inline: { encoding: '', data } } });
const KUBELET = '[Service]\nExecStart=/opt/bin/kubelet';
const VALITAIL = '[Service]\nExecStart=/usr/bin/valitail\nExecReload=/bin/kill -HUP $MAINPID';

function osc(o: { kubelet?: string; valitail?: string } = {}): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: 'osc' },
    spec: {
      type: 't',
      purpose: 'reconcile',
      units: [
        { name: 'kubelet.service', command: 'start', enable: true, content: o.kubelet ?? KUBELET },
        {
          name: 'valitail.service',
          command: 'start',
          enable: true,
          content: VALITAIL,
          filePaths: ['/etc/valitail/c.yaml'],
        },
      ],
      files: [file('/etc/valitail/c.yaml', o.valitail ?? 'a: 1\n')],
    },
  };
}

const POLICY: DisruptionPolicy = { paths: [], units: [{ unit: 'valitail.service', action: 'Reload' }] };

async function values(metric: { get(): Promise<{ values: { labels: object; value: number }[] }> }) {
  return (await metric.get()).values.map((v) => ({ ...v.labels, value: v.value }));
}

describe('node-agent disruption: the apply report and the metrics', () => {
  const tempDir = useTempDirs();

  it('counts restarts avoided by what avoided them', () => {
    const d = (unit: string, baseline: 'Restart' | 'None', action: UnitDisruption['action'], rule: string) =>
      ({ unit, baseline, action, causes: [{ action, source: 'x', why: 'y', rule }] }) as UnitDisruption;
    expect(
      avoidedRestarts([
        d('a.service', 'Restart', 'None', 'semantic-diff'),
        d('b.service', 'Restart', 'Reload', 'policy-unit'),
        d('c.service', 'Restart', 'None', 'default'),
        d('d.service', 'Restart', 'Restart', 'fallback'),
        d('e.service', 'None', 'Restart', 'default'),
      ]),
    ).to.deep.equal([
      { unit: 'a.service', by: 'semantic-diff' },
      { unit: 'b.service', by: 'reload' },
      { unit: 'c.service', by: 'rule' },
    ]);
  });

  it('reports the actions taken on the Node and counts reloads and avoided restarts', async () => {
    const root = tempDir();
    const metrics: AgentMetrics = agentMetrics(new Registry());
    const systemd = new MemorySystemd();
    const messages: string[] = [];
    let secretYaml = yamlOf(osc());
    const client = {
      mergePatch: async (
        _r: unknown,
        _n: unknown,
        body: { metadata: { annotations: Record<string, string> } },
      ) => {
        const message = body.metadata.annotations['node-configuration.gardener.cloud/apply-message'];
        if (message) messages.push(message);
      },
    } as unknown as KubeClient;
    let applies = 0;
    const reconciler = new OscReconciler({
      secretName: 'osc',
      kubernetesVersion: '1.30.2',
      syncPeriodMs: 600_000,
      root,
      client,
      systemd: countingRestarts(systemd, metrics),
      images: new DirectoryImageExtractor(tempDir()),
      recorder: { event: async () => undefined } as unknown as EventRecorder,
      secret: () => ({
        metadata: { name: 'osc', annotations: { 'checksum/data-script': sha256Hex(secretYaml) } },
        data: { 'osc.yaml': Buffer.from(secretYaml).toString('base64') },
      }),
      node: () => ({ metadata: { name: 'node-a', uid: 'u' } }),
      restartSelf: () => undefined,
      agentMetrics: metrics,
      settleMs: 0,
      disruptionPolicy: POLICY,
      // the drift monitor follows every finished apply
      onApplied: () => void applies++,
    });
    const ctx = { signal: new AbortController().signal, log: silentLogger };
    await reconciler.reconcile('kube-system/osc', ctx);
    secretYaml = yamlOf(osc({ kubelet: `# only a comment\n${KUBELET}`, valitail: 'a: 2\n' }));
    messages.length = 0;
    await reconciler.reconcile('kube-system/osc', ctx);

    expect(messages).to.have.length(2);
    expect(applies).to.equal(2);
    for (const message of messages)
      expect(message).to.contain('; actions: kubelet.service None, valitail.service Reload');
    expect(await values(metrics.restartsAvoided)).to.deep.equal([
      { by: 'semantic-diff', value: 1 },
      { by: 'reload', value: 1 },
    ]);
    expect(await values(metrics.unitReloads)).to.deep.equal([{ unit: 'valitail.service', value: 1 }]);
    expect(await values(metrics.unitRestarts)).to.deep.equal([
      { unit: 'kubelet.service', value: 1 },
      { unit: 'valitail.service', value: 1 },
    ]);
  });
});
