/**
 * Step 1/4, legacy: the controller-manager runs with `UseGardenerNodeAgent=false` (direct apply,
 * os-local), the shoot gets the legacy executor secrets and the downloader's token, and every node
 * is registered with the cloud-config-downloader's state in its root, as a legacy node has it.
 */
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import {
  ANNOTATION,
  DATA_KEY,
  LABEL,
  LABEL_VALUE,
  NAME,
  NAMESPACE_KUBE_SYSTEM,
  PATH,
} from '../../../api/index.js';
import type { ScenarioRun } from '../scenario-run.js';
import { legacyDownloaderFiles, listShootSecrets, summarizeSpread, withLog } from '../shoot-reads.js';
import { until } from '../wait.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export async function runLegacyNodes(run: ScenarioRun): Promise<void> {
  run.heading('legacy', '1/4 Legacy: UseGardenerNodeAgent=false, the nodes run the cloud-config-downloader');
  const from = Date.now();
  run.emit('step', 'starting gardener-osc controller-manager (direct apply mode, os-local, gate off)');
  run.controllerManager = await run.landscape.startControllerManager({
    useGardenerNodeAgent: false,
    logFile: run.controllerManagerLog,
    signal: run.signal,
  });
  const legacy = await until(
    'the legacy executor secrets and the downloader token in the shoot',
    async () => {
      const secrets = await listShootSecrets(
        run.landscape,
        `${LABEL.gardenerRole}=${LABEL_VALUE.roleCloudConfig}`,
      );
      const token = await run.landscape.shootCore
        .readNamespacedSecret({ name: NAME.downloader, namespace: NAMESPACE_KUBE_SYSTEM })
        .catch(() => undefined);
      const pools = new Set(run.specs.map((s) => s.pool));
      const byPool = new Map(secrets.map((s) => [s.metadata?.labels?.[LABEL.workerPool] ?? '', s]));
      const data = token?.data?.[DATA_KEY.token];
      if (![...pools].every((p) => byPool.has(p)) || !data) return undefined;
      return { byPool, token: Buffer.from(data, 'base64') };
    },
    { timeoutMs: 120_000, signal: run.signal, intervalMs: 500 },
  ).catch(withLog(run.controllerManager, run.controllerManagerLog));
  run.emit(
    'step',
    `the shoot has the legacy executor secrets (${[...legacy.byPool.values()].map((s) => s.metadata?.name).join(', ')}) and the downloader's token`,
  );
  const downloaderOscs = await legacyDownloaderFiles(run.landscape);
  for (const node of run.nodes) {
    const s = node.spec;
    await run.landscape.shootCore.createNode({
      body: {
        metadata: {
          name: s.name,
          labels: {
            [LABEL.workerPool]: s.pool,
            [LABEL.kubernetesVersion]: s.kubernetesVersion,
            [LABEL.zone]: s.zone,
            [LABEL.hostname]: s.name,
            [LABEL.architecture]: s.architecture,
            [LABEL.nodeRole]: LABEL_VALUE.nodeRoleNode,
            ...(s.criName ? { [LABEL.criName]: s.criName } : {}),
          },
        },
      },
    });
    // what the kubelet reports once it runs: the rollout gate counts Ready nodes
    await run.landscape.shootCore.patchNodeStatus(
      {
        name: s.name,
        body: {
          status: {
            conditions: [
              {
                type: 'Ready',
                status: 'True',
                reason: 'KubeletReady',
                message: 'kubelet is posting ready status',
                lastTransitionTime: new Date(),
                lastHeartbeatTime: new Date(),
              },
            ],
          },
        },
      },
      mergePatch,
    );
    const files = downloaderOscs.get(s.pool);
    if (!files) throw new Error(`no legacy downloader OSC for pool ${s.pool}`);
    const checksum = legacy.byPool.get(s.pool)?.metadata?.annotations?.[ANNOTATION.checksumDataScript] ?? '';
    await node.writeLegacyState({
      unitContent: files.unit,
      files: [
        ...files.files,
        { path: PATH.downloaderToken, mode: 0o600, content: legacy.token },
        {
          path: '/var/lib/cloud-config-downloader/downloads/execute-cloud-config-checksum',
          mode: 0o644,
          content: Buffer.from(checksum),
        },
      ],
    });
    // what the legacy executor stamps on its node after each run
    await run.landscape.shootCore.patchNode(
      {
        name: s.name,
        body: { metadata: { annotations: { [ANNOTATION.checksumCloudConfigData]: checksum } } },
      },
      mergePatch,
    );
  }
  run.emit(
    'step',
    `registered ${run.nodes.length} Nodes: ${summarizeSpread(run.specs)}; each root holds the downloader's token, credentials, script and unit`,
  );
  run.phases.legacy = { from: run.since(from), to: run.since(Date.now()) };
}
