/**
 * The agent's side of the rollout gate against a real API server: it applies only the checksum
 * its Node permits (at once, the seed times it), holds otherwise, behaves as upstream's agent
 * without a permission (the delay, then the apply), and reports every apply on its Node: Failed
 * with why when a restart fails, Failed when a restarted unit is not active after the settle time,
 * else Verifying and then Succeeded.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Node } from '@kubernetes/client-node';
import { expect } from 'chai';
import {
  ANNOTATION,
  type ApplyReport,
  type OperatingSystemConfig,
  PERMITTED_CHECKSUM_ANNOTATION,
  readApplyReport,
  sha256Hex,
} from '../../api/index.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { writeImages } from '../../hack/landscape/image-files.js';
import { BAD_MAX_PODS, kubeletOsc } from '../../hack/landscape/kubelet-osc.js';
import { IMAGE_FILES, oscV1, oscV2, yamlOf } from '../../hack/landscape/ntv18-fixtures.js';
import { MemorySystemd } from '../../hack/node-agent-doubles/memory-systemd.js';
import { parseRecording, RecordingSystemd } from '../../hack/node-agent-doubles/recording-systemd.js';
import { readSystemdFaults } from '../../hack/node-agent-doubles/systemd-faults.js';
import { addOscController } from '../../node-agent/controllers/operatingsystemconfig/add.js';
import { DirectoryImageExtractor } from '../../node-agent/registry/directory-extractor.js';
import type { Systemd } from '../../node-agent/systemd/systemd.js';
import { EventRecorder } from '../../runtime/events.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('node agent rollout gate against a real API server', function () {
  this.timeout(120_000);
  let env: Envtest;
  let core: CoreV1Api;
  let dir: string;
  let images: string;
  const suffix = Date.now().toString(36);
  const nodes: string[] = [];
  const secrets: string[] = [];
  const stops: AbortController[] = [];

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'shoot' });
    requireClusterScopedWrites(env);
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    dir = mkdtempSync(join(tmpdir(), 'gna-gate-'));
    images = writeImages(join(dir, 'images'), IMAGE_FILES);
  });

  after(async () => {
    for (const stop of stops) stop.abort();
    rmSync(dir, { recursive: true, force: true });
    for (const name of nodes) await core?.deleteNode({ name }).catch(() => undefined);
    for (const name of secrets)
      await core?.deleteNamespacedSecret({ name, namespace: 'kube-system' }).catch(() => undefined);
  });

  const secretBody = (name: string, osc: OperatingSystemConfig) => {
    const yaml = yamlOf(osc);
    return {
      checksum: sha256Hex(yaml),
      body: {
        metadata: {
          name,
          namespace: 'kube-system',
          annotations: { 'checksum/data-script': sha256Hex(yaml) },
        },
        data: { 'osc.yaml': Buffer.from(yaml).toString('base64') },
      },
    };
  };

  /** A Node, its secret with `osc`, and an agent's OSC controller on them. */
  async function agent(
    name: string,
    o: {
      osc: OperatingSystemConfig;
      annotations?: Record<string, string>;
      systemd?: Systemd;
      root?: string;
      revertFailedApplies?: boolean;
    },
  ) {
    const nodeName = `gate-${name}-${suffix}`;
    const secretName = `gardener-node-agent-gate-${name}-${suffix}`;
    nodes.push(nodeName);
    secrets.push(secretName);
    await core.createNode({
      body: {
        metadata: {
          name: nodeName,
          labels: { 'kubernetes.io/hostname': nodeName },
          annotations: { 'node-agent.gardener.cloud/reconciliation-delay': '3s', ...o.annotations },
        },
      },
    });
    const first = secretBody(secretName, o.osc);
    await core.createNamespacedSecret({ namespace: 'kube-system', body: first.body });
    const stop = new AbortController();
    stops.push(stop);
    const systemd = o.systemd ?? new MemorySystemd();
    const root = o.root ?? mkdtempSync(join(dir, `${name}-`));
    const controller = addOscController(
      {
        http: new KubeHttp(env.kubeConfig),
        client: new KubeClient(new KubeHttp(env.kubeConfig)),
        secretName,
        nodeName,
        hostName: nodeName,
        kubernetesVersion: '1.30.2',
        syncPeriodMs: 600_000,
        root,
        systemd,
        images: new DirectoryImageExtractor(images),
        recorder: new EventRecorder({ http: new KubeHttp(env.kubeConfig), component: 'gardener-node-agent' }),
        restartSelf: () => undefined,
        applySettleMs: 300,
        revertFailedApplies: o.revertFailedApplies,
      },
      stop.signal,
    );
    await controller.synced();
    const read = async (): Promise<V1Node> => core.readNode({ name: nodeName });
    return {
      nodeName,
      root,
      systemd,
      checksum: first.checksum,
      read,
      report: async (): Promise<ApplyReport | undefined> =>
        readApplyReport((await read()).metadata?.annotations),
      applied: async () => (await read()).metadata?.annotations?.[ANNOTATION.checksumCloudConfigData],
      update: async (osc: OperatingSystemConfig) => {
        const next = secretBody(secretName, osc);
        await core.replaceNamespacedSecret({ name: secretName, namespace: 'kube-system', body: next.body });
        return next.checksum;
      },
      annotate: (annotations: Record<string, string | null>) =>
        core.patchNode({ name: nodeName, body: { metadata: { annotations } } }, merge),
    };
  }

  it('applies only the permitted checksum, at once when permitted, and reports Verifying then Succeeded', async () => {
    const v1 = sha256Hex(yamlOf(oscV1()));
    const a = await agent('permitted', {
      osc: oscV1(),
      annotations: { [PERMITTED_CHECKSUM_ANNOTATION]: v1 },
    });
    const first = await eventually('the report of v1', async () => {
      const r = await a.report();
      return r?.checksum === v1 && r.result === 'Succeeded' ? r : undefined;
    });
    expect(first.reason).to.equal('Applied');
    expect(first.message).to.match(/restarted unit\(s\) active after 0\.3s/);
    expect(await a.applied()).to.equal(v1);

    // a new OSC the seed has not permitted: the node holds
    const v2 = await a.update(oscV2());
    await sleep(4000);
    expect(await a.applied(), 'held: the delay passed, no permission').to.equal(v1);
    // the permission arrives: applied at once, not after the node's delay
    const permittedAt = Date.now();
    await a.annotate({ [PERMITTED_CHECKSUM_ANNOTATION]: v2 });
    await eventually('v2 applied', async () => (await a.applied()) === v2);
    expect(Date.now() - permittedAt, 'at once: the seed timed this node').to.be.below(3000);
    const second = await eventually('the report of v2', async () => {
      const r = await a.report();
      return r?.checksum === v2 && r.result === 'Succeeded' ? r : undefined;
    });
    expect(second.reason).to.equal('Applied');
  });

  it('reports Failed (UnitCommandFailed) when a restart fails, and does not stamp the checksum', async () => {
    const systemd = new MemorySystemd((op) =>
      op.op === 'restart' && op.unit === 'unit1' ? new Error('Job for unit1 failed') : undefined,
    );
    const a = await agent('restart-fails', { osc: oscV1(), systemd });
    const report = await eventually('a failure report', async () => {
      const r = await a.report();
      return r?.result === 'Failed' ? r : undefined;
    });
    expect(report).to.include({ checksum: a.checksum, reason: 'UnitCommandFailed' });
    expect(report.message).to.equal('restart unit1: Job for unit1 failed');
    expect(await a.applied()).to.equal(undefined);
  });

  it('reports Failed (UnitNotActive) when a restarted unit is not active after the settle time', async () => {
    const rules = join(dir, 'faults.json');
    writeFileSync(rules, JSON.stringify([{ unit: 'unit1', effect: 'inactive' }]));
    const systemd = new RecordingSystemd(join(dir, 'inactive.jsonl'), {
      faults: () => readSystemdFaults(rules),
    });
    const a = await agent('inactive', { osc: oscV1(), systemd });
    const report = await eventually('a failure report', async () => {
      const r = await a.report();
      return r?.result === 'Failed' ? r : undefined;
    });
    expect(report).to.include({ checksum: a.checksum, reason: 'UnitNotActive' });
    expect(report.message).to.equal('unit1 is inactive (dead), 0.3s after the apply restarted it');
    expect(await a.applied(), 'applied: the files are there, the unit does not run').to.equal(a.checksum);
  });

  it('without a permission behaves as upstream: applies after its delay; a removed permission does the same', async () => {
    const a = await agent('ungated', { osc: oscV1() });
    await eventually('v1 applied', async () => (await a.applied()) === a.checksum);
    const changedAt = Date.now();
    const v2 = await a.update(oscV2());
    await eventually('v2 applied', async () => (await a.applied()) === v2);
    expect(Date.now() - changedAt, 'after the 3 s delay').to.be.at.least(3000);

    const v1 = sha256Hex(yamlOf(oscV1()));
    const held = await agent('removed', {
      osc: oscV1(),
      annotations: { [PERMITTED_CHECKSUM_ANNOTATION]: v1 },
    });
    await eventually('v1 applied', async () => (await held.applied()) === v1);
    const next = await held.update(oscV2());
    await sleep(1000);
    expect(await held.applied()).to.equal(v1);
    const removedAt = Date.now();
    await held.annotate({ [PERMITTED_CHECKSUM_ANNOTATION]: null });
    await eventually('v2 applied', async () => (await held.applied()) === next);
    expect(Date.now() - removedAt, 'after the 3 s delay').to.be.at.least(3000);
  });

  it('holds on a permission that is no checksum', async () => {
    const a = await agent('invalid', {
      osc: oscV1(),
      annotations: { [PERMITTED_CHECKSUM_ANNOTATION]: 'yes' },
    });
    await sleep(2000);
    expect(await a.applied()).to.equal(undefined);
    expect(await a.report()).to.equal(undefined);
    expect((a.systemd as MemorySystemd).ops).to.deep.equal([]);
  });

  it('with --revert-failed-applies goes back to what ran before, reports RolledBack, and holds the failed checksum', async () => {
    const root = mkdtempSync(join(dir, 'revert-'));
    const rules = join(dir, 'revert-faults.json');
    writeFileSync(
      rules,
      JSON.stringify([
        {
          unit: 'kubelet.service',
          effect: 'inactive',
          whenFileContains: { path: '/var/lib/kubelet/config/kubelet', text: `maxPods: ${BAD_MAX_PODS}` },
        },
      ]),
    );
    const record = join(dir, 'revert.jsonl');
    const systemd = new RecordingSystemd(record, { faults: () => readSystemdFaults(rules), root });
    const a = await agent('revert', { osc: kubeletOsc(110), systemd, root, revertFailedApplies: true });
    await eventually('v110 succeeded', async () => (await a.report())?.result === 'Succeeded');
    const bad = await a.update(kubeletOsc(BAD_MAX_PODS));
    const report = await eventually('the rollback reported', async () => {
      const r = await a.report();
      return r?.checksum === bad && r.result === 'Failed' ? r : undefined;
    });
    expect(report.reason).to.equal('RolledBack');
    expect(report.message).to.match(
      new RegExp(
        `^UnitNotActive: kubelet\\.service is inactive \\(dead\\), 0\\.3s after the apply restarted it; went back to ${a.checksum.slice(0, 12)}, which is healthy$`,
      ),
    );
    expect(await a.applied(), 'the node runs the previous configuration again').to.equal(a.checksum);
    expect(readFileSync(join(root, 'var/lib/kubelet/config/kubelet'), 'utf8')).to.equal('maxPods: 110\n');
    expect(readFileSync(join(root, 'var/lib/gardener-node-agent/reverted-osc-checksum'), 'utf8')).to.equal(
      `${bad}\n`,
    );
    // it does not apply the failed checksum again
    const restarts = parseRecording(readFileSync(record, 'utf8')).length;
    await sleep(2000);
    expect(parseRecording(readFileSync(record, 'utf8')).length).to.equal(restarts);
    // the fix is applied, and the failed checksum forgotten
    const fix = await a.update(kubeletOsc(120));
    await eventually('the fix succeeded', async () => {
      const r = await a.report();
      return r?.checksum === fix && r.result === 'Succeeded';
    });
    expect(existsSync(join(root, 'var/lib/gardener-node-agent/reverted-osc-checksum'))).to.equal(false);
  });
});
