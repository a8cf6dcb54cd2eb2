/**
 * ManagedResource `shoot-cloud-config-execution` (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/executor/executor.go,
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go,
 * pkg/gardenlet/operation/botanist/worker.go): for nodes still run by cloud-config-downloader, one
 * executor secret per pool (built from the OS extension's rendering of the pool's reconcile OSC)
 * and the downloader's RBAC. While the gate is on it is rendered from the gate-on reconcile OSC,
 * which is how legacy nodes receive gardener-node-init.
 */
import {
  legacyKey,
  NAME,
  type NodeAgentIdentityMode,
  type OperatingSystemConfig,
  type Worker,
} from '../../api/index.js';
import type { ComponentContext } from '../../components/component.js';
import { executorScript } from '../../components/executor/executor-script.js';
import { type ExecutorSecret, executorSecret } from '../../components/executor/executor-secret.js';
import { kubeletDataVolumeSize } from '../../components/node-init/node-init.js';
import { downloaderRbac } from './legacy-rbac.js';
import {
  type ManagedResourceSecret,
  managedResource,
  managedResourceSecret,
  registryData,
} from './managed-resource.js';

/** What an OS extension produces for a reconcile OSC: its user data and the status fields the executor reads. */
export interface OsExtensionRendering {
  readonly cloudConfig: string;
  readonly command: string | undefined;
  readonly units: readonly string[];
  readonly files: readonly string[];
  /** Where it came from, said on the executor secret (e.g. the offline reference rendering). */
  readonly source?: string;
}

export interface LegacyPool {
  readonly ctx: ComponentContext;
  readonly worker: Worker;
  readonly reconcile: OperatingSystemConfig;
  readonly rendering: OsExtensionRendering;
}

export const RENDERED_FROM_ANNOTATION = 'node-configuration.gardener.cloud/cloud-config-source';

export function legacyExecutorResources(
  pools: readonly LegacyPool[],
  namespace: string,
  maxDelaySeconds: number,
  useGardenerNodeAgent: boolean,
  identity: NodeAgentIdentityMode,
): {
  seed: (ManagedResourceSecret | ReturnType<typeof managedResource>)[];
  shoot: (ExecutorSecret | Record<string, unknown>)[];
} {
  const executorSecrets = pools.map(({ ctx, worker, rendering }) => {
    const script = executorScript({
      cloudConfig: rendering.cloudConfig,
      maxDelaySeconds,
      hyperkubeImage: ctx.images.hyperkube ?? '',
      kubernetesVersion: `${ctx.kubernetesVersion.major}.${ctx.kubernetesVersion.minor}.${ctx.kubernetesVersion.patch}`,
      kubeletDataVolumeSize: kubeletDataVolumeSize(worker),
      reloadCommand: rendering.command,
      units: rendering.units,
      files: rendering.files,
    });
    const annotations: Record<string, string> = rendering.source
      ? { [RENDERED_FROM_ANNOTATION]: rendering.source }
      : {};
    return executorSecret(
      legacyKey(worker.name, ctx.kubernetesVersion, worker.cri?.name),
      worker.name,
      script,
      annotations,
    );
  });
  const mrSecrets = executorSecrets.map((secret, i) =>
    managedResourceSecret(
      NAME.managedResourceLegacy,
      `${NAME.managedResourceLegacy}-${pools[i]!.worker.name}`,
      namespace,
      registryData([secret]),
    ),
  );
  const rbac = downloaderRbac(
    executorSecrets.map((s) => s.metadata.name),
    useGardenerNodeAgent,
    identity,
  );
  mrSecrets.push(
    managedResourceSecret(
      NAME.managedResourceLegacy,
      NAME.rbacLogicalLegacy,
      namespace,
      registryData(rbac as never[]),
    ),
  );
  return {
    seed: [
      ...mrSecrets,
      managedResource(
        NAME.managedResourceLegacy,
        namespace,
        mrSecrets.map((s) => s.metadata.name),
      ),
    ],
    shoot: [...executorSecrets, ...rbac],
  };
}
