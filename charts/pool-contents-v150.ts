/**
 * What gardenlet v1.150.0 puts into one worker pool's OSC pair, from the Cluster and the render
 * values: the key read from the Shoot, the provision contents (node-init, SSH) and the reconcile
 * contents per component (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go `forEachWorkerPool` and
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go). The kubelet settings and the
 * kubelet's grace period are read as v1.150 reads them (values/pool-inputs-v150.ts,
 * values/kubelet-parameters-v150.ts).
 */
import {
  type Cluster,
  formatSemVer,
  isUpdateStrategyInPlace,
  keyV150,
  LABEL,
  lastInitiationTimeForWorkerPool,
  type Worker,
} from '../api/index.js';
import {
  nodeAgentComponentConfigV150,
  nodeInitComponentConfigV150,
} from '../components/node-agent/component-config-v150.js';
import { kubeletDataVolumeSize } from '../components/node-init/node-init.js';
import { nodeInitV150 } from '../components/node-init/node-init-v150.js';
import { provisionContentsV150 } from './operating-system-config/provision-contents-v150.js';
import { reconcileContentsV150 } from './operating-system-config/reconcile-contents-v150.js';
import type { PoolContentsV150 } from './seed-objects-v150.js';
import { osCaBundleV150 } from './values/ca-bundle-v150.js';
import { GARDENLET_GIT_VERSION_V150, type ImagesV150 } from './values/images-v150.js';
import { kubeletParametersV150 } from './values/kubelet-parameters-v150.js';
import { openTelemetryCollectorIngressHost } from './values/otel-ingress-host.js';
import {
  effectiveKubeletConfig,
  keyV150InputOf,
  nodeMonitorGracePeriodSeconds,
} from './values/pool-inputs-v150.js';
import type { RenderValues } from './values/render-values.js';
import { type ShootValues, valiIngressHost, workerPoolContext } from './values/worker-pool-context.js';

export interface PoolContentsV150Input {
  readonly cluster: Cluster;
  readonly values: RenderValues;
  readonly shoot: ShootValues;
  readonly worker: Worker;
  readonly images: ImagesV150;
  /** gardenlet's `OpenTelemetryCollector` gate (on by default): off, valitail ships the logs. */
  readonly openTelemetryCollector: boolean;
}

export function poolContentsV150({
  cluster,
  values,
  shoot,
  worker,
  images,
  openTelemetryCollector,
}: PoolContentsV150Input): PoolContentsV150 {
  const ctx = workerPoolContext(cluster, values, shoot, worker);
  const spec = cluster.shoot.spec;
  const key = keyV150(keyV150InputOf(cluster.shoot, worker));
  const caBundle = osCaBundleV150(
    cluster.cloudProfile.spec.caBundle,
    shoot.clusterCa.bundle,
    worker.caBundle,
  );
  const ssh = { sshAccessEnabled: ctx.sshAccessEnabled, sshPublicKeys: ctx.sshPublicKeys };
  const nodeLogging = values.nodeLogging ?? false;
  const technicalId = cluster.shoot.status?.technicalID ?? cluster.name;
  const ingressDomain = cluster.seed.spec.ingress?.domain ?? '';
  const shipper = openTelemetryCollector ? 'opentelemetry-collector' : 'valitail';
  const reconcile = reconcileContentsV150({
    kubeletDataVolumeName: worker.kubeletDataVolumeName,
    rootCertificates: { caBundle, registryCaBundle: values.registryCaBundle },
    kernelConfig: {
      kubeProxyEnabled: spec.kubernetes.kubeProxy?.enabled === true,
      protectKernelDefaults: ctx.kubeletConfigParameters.protectKernelDefaults,
      sysctls: ctx.sysctls,
    },
    kubelet: {
      params: kubeletParametersV150(
        effectiveKubeletConfig(cluster.shoot, worker),
        worker.machine.type,
        cluster.cloudProfile,
      ),
      clusterDnsAddresses: [ctx.clusterDnsAddress],
      clusterDomain: ctx.clusterDomain,
      taints: worker.taints ?? [],
      kubernetesVersion: ctx.kubernetesVersion,
      criName: ctx.criName,
      nodeLabels: { ...ctx.nodeLabels, [LABEL.nodeAgentSecretName]: key },
      preferIPv6: ctx.preferIPv6,
      kubeletCaBundle: ctx.kubeletCaBundle,
      hyperkubeImage: ctx.images.hyperkube ?? '',
      nodeMonitorGracePeriodSeconds: nodeMonitorGracePeriodSeconds(cluster.shoot),
    },
    ssh,
    nodeAgent: {
      config: nodeAgentComponentConfigV150({
        oscSecretName: key,
        kubernetesVersion: ctx.kubernetesVersion,
        apiServerUrl: shoot.apiServerUrl,
        logShipper: nodeLogging ? shipper : 'none',
      }),
      gitVersion: GARDENLET_GIT_VERSION_V150,
      caBundle,
      image: images.nodeAgent,
    },
    logShipper: openTelemetryCollector
      ? {
          kind: 'opentelemetry-collector',
          input: {
            enabled: nodeLogging,
            ingressHost: openTelemetryCollectorIngressHost(technicalId, ingressDomain),
            caBundle,
            apiServerUrl: shoot.apiServerUrl,
            image: images.openTelemetryCollector,
          },
        }
      : {
          kind: 'valitail',
          input: {
            enabled: nodeLogging,
            valiIngress: nodeLogging ? valiIngressHost(technicalId, ingressDomain) : '',
            caBundle,
            apiServerUrl: shoot.apiServerUrl,
            image: images.valitail,
          },
        },
  });
  const nodeInit = nodeInitV150({
    image: images.nodeAgent,
    config: nodeInitComponentConfigV150(
      { oscSecretName: key, kubernetesVersion: ctx.kubernetesVersion, apiServerUrl: shoot.apiServerUrl },
      kubeletDataVolumeSize(worker),
    ),
    gitVersion: GARDENLET_GIT_VERSION_V150,
    clusterCaBundle: shoot.clusterCa.bundle,
    registryCa: values.registryCaBundle === undefined ? undefined : { apiServerUrl: shoot.apiServerUrl },
  });
  const image = worker.machine.image;
  const rotation = cluster.shoot.status?.credentials?.rotation;
  const initiated = (r: Parameters<typeof lastInitiationTimeForWorkerPool>[1] | undefined) =>
    r && lastInitiationTimeForWorkerPool(worker.name, r);
  const caRotation = initiated(rotation?.certificateAuthorities);
  const saKeyRotation = initiated(rotation?.serviceAccountKey);
  return {
    pool: {
      key,
      pool: worker.name,
      image: image && { name: image.name, version: image.version, providerConfig: image.providerConfig },
      criName: worker.cri?.name,
      pauseImage: images.pauseContainer,
      // gardener v1.150.0 operatingsystemconfig.go: the reconcile OSC of an in-place pool says what to update to
      ...(isUpdateStrategyInPlace(worker.updateStrategy)
        ? {
            inPlace: {
              kubeletVersion: formatSemVer(ctx.kubernetesVersion),
              ...(caRotation === undefined ? {} : { caRotationLastInitiationTime: caRotation }),
              ...(saKeyRotation === undefined
                ? {}
                : { serviceAccountKeyRotationLastInitiationTime: saKeyRotation }),
            },
          }
        : {}),
    },
    provision: provisionContentsV150(nodeInit, ssh),
    reconcile,
  };
}
