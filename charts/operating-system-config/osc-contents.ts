/**
 * The units and files of a worker pool's two OSCs (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go): gate on, the provision
 * OSC holds node-init (+ gardener-user and sshd-ensurer with SSH) and the reconcile OSC everything
 * plus node-init's unit and script (how legacy nodes get the agent); gate off, the downloader.
 */
import { type OscFile, type OscPurpose, PATH, type Worker } from '../../api/index.js';
import { b64, type ComponentContext, type ComponentOutput, MODE } from '../../components/component.js';
import { DOWNLOADER_UNIT_CONTENT, downloader } from '../../components/downloader/downloader.js';
import { gardenerUser } from '../../components/gardener-user/gardener-user.js';
import { nodeAgentComponentConfig } from '../../components/node-agent/component-config.js';
import { nodeInit } from '../../components/node-init/node-init.js';
import { concat, original } from '../../components/original/original.js';
import { sshdEnsurer } from '../../components/sshd-ensurer/sshd-ensurer.js';

export type Purpose = OscPurpose;

export interface PoolInputs {
  readonly ctx: ComponentContext;
  readonly worker: Worker;
  readonly clusterCa: { bundle: string; secretName: string };
}

function nodeInitOutput({ ctx, worker, clusterCa }: PoolInputs): ComponentOutput {
  const image = ctx.images['gardener-node-agent'];
  if (!image) throw new Error('the gardener-node-agent image is missing');
  // node-init carries the cluster CA, not the merged bundle (upstream does the same)
  const config = nodeAgentComponentConfig({
    oscSecretName: ctx.key,
    kubernetesVersion: ctx.kubernetesVersion,
    apiServerUrl: ctx.apiServerUrl,
    caBundle: clusterCa.bundle,
    syncJitterPeriod: ctx.syncJitterPeriod,
    identity: ctx.nodeAgentIdentity,
  });
  return nodeInit(worker, image, config);
}

export function oscContents(purpose: Purpose, inputs: PoolInputs): ComponentOutput {
  const { ctx } = inputs;
  if (ctx.useGardenerNodeAgent) {
    const init = nodeInitOutput(inputs);
    if (purpose === 'provision') {
      return ctx.sshAccessEnabled ? concat([init, gardenerUser(ctx), sshdEnsurer(ctx)]) : init;
    }
    const initScript = init.files.filter((f) => f.path === PATH.nodeAgentInitScript);
    return concat([original(ctx), { units: init.units, files: initScript }]);
  }
  const legacy = downloader(ctx.key, ctx.apiServerUrl, inputs.clusterCa.secretName);
  if (purpose === 'provision') return legacy;
  const downloaderFiles: OscFile[] = legacy.files.filter((f) => f.path !== PATH.downloaderBootstrapToken);
  downloaderFiles.push({
    path: PATH.downloaderUnitFile,
    permissions: MODE.rw,
    content: b64(DOWNLOADER_UNIT_CONTENT),
  });
  return concat([original(ctx), { units: [], files: downloaderFiles }]);
}
