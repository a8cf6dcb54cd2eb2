import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Node } from '@kubernetes/client-node';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { sha256Hex } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1, yamlOf } from '../../../hack/landscape/ntv18-fixtures.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import {
  type AgentMetrics,
  agentMetrics,
  countingRestarts,
} from '../../../node-agent/controllers/agent-metrics.js';
import { OscReconciler } from '../../../node-agent/controllers/operatingsystemconfig/reconciler.js';
import { jwtExpirySeconds } from '../../../node-agent/controllers/token/jwt-expiry.js';
import { DirectoryImageExtractor } from '../../../node-agent/registry/directory-extractor.js';
import { FakeClock } from '../../../runtime/clock.js';
import type { EventRecorder } from '../../../runtime/events.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { silentLogger } from '../../../runtime/logging.js';
import { useTempDirs } from '../support/harness.js';

function jwt(payload: object): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'RS256', kid: 'k' })}.${part(payload)}.c2lnbmF0dXJl`;
}

async function values(metric: { get(): Promise<{ values: { labels: object; value: number }[] }> }) {
  return (await metric.get()).values.map((v) => ({ ...v.labels, value: v.value }));
}

describe('node agent metrics', () => {
  const tempDir = useTempDirs();

  describe('OSC applies', () => {
    let root: string;
    let metrics: AgentMetrics;
    let systemd: MemorySystemd;
    let secretYaml: string;
    let patched: number;

    const reconciler = (node: V1Node | undefined) =>
      new OscReconciler({
        secretName: 'osc',
        kubernetesVersion: '1.30.2',
        syncPeriodMs: 600_000,
        root,
        client: { mergePatch: async () => void patched++ } as unknown as KubeClient,
        systemd: countingRestarts(systemd, metrics),
        images: new DirectoryImageExtractor(writeImages(tempDir(), IMAGE_FILES)),
        recorder: { event: async () => undefined } as unknown as EventRecorder,
        secret: () => ({
          metadata: { name: 'osc', annotations: { 'checksum/data-script': sha256Hex(secretYaml) } },
          data: { 'osc.yaml': Buffer.from(secretYaml).toString('base64') },
        }),
        node: () => node,
        restartSelf: () => undefined,
        agentMetrics: metrics,
        settleMs: 0,
      });
    const ctx = { signal: new AbortController().signal, log: silentLogger };
    const node = { metadata: { name: 'node-a', uid: 'u' } };

    beforeEach(() => {
      root = tempDir();
      metrics = agentMetrics(new Registry());
      systemd = new MemorySystemd();
      secretYaml = yamlOf(oscV1());
      patched = 0;
    });

    it('counts and times each apply by result, and counts restarted units', async () => {
      await reconciler(node).reconcile('kube-system/osc', ctx);
      // the stamp with the report "Verifying", then the verdict
      expect(patched).to.equal(2);
      expect(await values(metrics.oscApplies)).to.deep.equal([{ result: 'applied', value: 1 }]);
      const duration = (await metrics.oscApplyDuration.get()).values;
      expect(duration.find((v) => v.metricName?.endsWith('_count'))).to.deep.include({
        labels: { result: 'applied' },
        value: 1,
      });
      expect(await values(metrics.unitRestarts)).to.deep.include({ unit: 'unit1', value: 1 });

      // the Node does not carry the checksum yet: applied again, nothing left to do
      await reconciler(node).reconcile('kube-system/osc', ctx);
      expect(await values(metrics.oscApplies)).to.deep.equal([
        { result: 'applied', value: 1 },
        { result: 'up_to_date', value: 1 },
      ]);

      // a fresh node whose unit restart fails: the apply fails
      root = tempDir();
      systemd = new MemorySystemd((op) => (op.op === 'restart' ? new Error('job failed') : undefined));
      let error: Error | undefined;
      await reconciler(node)
        .reconcile('kube-system/osc', ctx)
        .catch((e: Error) => (error = e));
      expect(error?.message).to.contain('job failed');
      expect(await values(metrics.oscApplies)).to.deep.include({ result: 'error', value: 1 });
      expect(await values(metrics.unitRestarts)).to.deep.include({ unit: 'unit1', value: 1 });
    });

    it('a Node already reporting the checksum is no apply', async () => {
      const stamped = {
        metadata: { ...node.metadata, annotations: { 'checksum/cloud-config-data': sha256Hex(secretYaml) } },
      };
      await reconciler(stamped).reconcile('kube-system/osc', ctx);
      expect(await values(metrics.oscApplies)).to.deep.equal([]);
    });
  });

  it('counts only restarts that succeeded', async () => {
    const metrics = agentMetrics(new Registry());
    const systemd = countingRestarts(
      new MemorySystemd((op) =>
        'unit' in op && op.unit === 'bad.service' ? new Error('failed') : undefined,
      ),
      metrics,
    );
    await systemd.restart('kubelet.service');
    await systemd.restart('bad.service').catch(() => undefined);
    await systemd.start('kubelet.service');
    expect(await values(metrics.unitRestarts)).to.deep.equal([{ unit: 'kubelet.service', value: 1 }]);
  });

  describe('token expiry', () => {
    it('decodes the exp claim without verifying; anything else has none', () => {
      expect(jwtExpirySeconds(jwt({ exp: 1767229200, sub: 'x' }))).to.equal(1767229200);
      expect(jwtExpirySeconds(Buffer.from(`${jwt({ exp: 42 })}\n`))).to.equal(42);
      expect(jwtExpirySeconds(jwt({ sub: 'no exp' }))).to.equal(undefined);
      expect(jwtExpirySeconds(jwt({ exp: '42' }))).to.equal(undefined);
      expect(jwtExpirySeconds('t0k3n')).to.equal(undefined);
      expect(jwtExpirySeconds('a.!!!.c')).to.equal(undefined);
      expect(jwtExpirySeconds('')).to.equal(undefined);
    });

    it('reports seconds until each token file expires, at scrape time', async () => {
      const clock = new FakeClock(Date.UTC(2026, 0, 1));
      const registry = new Registry();
      const metrics = agentMetrics(registry, clock);
      const root = tempDir();
      const write = (path: string, content: string) => {
        mkdirSync(join(root, path, '..'), { recursive: true });
        writeFileSync(join(root, path), content);
      };
      const now = clock.now() / 1000;
      write('/var/lib/gardener-node-agent/credentials/token', jwt({ exp: now + 3600 }));
      write('/var/lib/extra/token', 'opaque');
      for (const path of [
        '/var/lib/gardener-node-agent/credentials/token',
        '/var/lib/extra/token',
        '/var/lib/missing/token',
        'relative/path',
      ]) {
        metrics.trackTokenFile(root, path);
      }
      expect(await values(metrics.tokenExpiresIn)).to.deep.equal([
        { path: '/var/lib/gardener-node-agent/credentials/token', value: 3600 },
      ]);
      await clock.advance(600_000);
      expect(await values(metrics.tokenExpiresIn)).to.deep.equal([
        { path: '/var/lib/gardener-node-agent/credentials/token', value: 3000 },
      ]);
      write('/var/lib/gardener-node-agent/credentials/token', 'rotated-to-opaque');
      expect(await values(metrics.tokenExpiresIn)).to.deep.equal([]);
      expect(await registry.metrics()).to.contain(
        '# TYPE gardener_node_agent_token_expires_in_seconds gauge',
      );
    });
  });

  it("passes systemd's enablement through the restart counter, which drift detection reads", async () => {
    const inner = new MemorySystemd();
    await inner.enable(['a.service']);
    await inner.disable(['a.service']);
    const systemd = countingRestarts(inner, agentMetrics(new Registry()));
    expect(systemd.unitFileState).to.be.a('function');
    expect(await systemd.unitFileState!('a.service')).to.equal('disabled');
  });
});
