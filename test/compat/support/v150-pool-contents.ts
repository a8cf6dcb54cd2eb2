/**
 * The inputs of a v1.150.0 pool as the compat tests build them from a Cluster and the example
 * values (examples/values.yaml), with our v1.150.0 image vector, and the pools of upstream's
 * reference renderings (test/golden/render-v1.150/upstream-*.yaml). The key, the kubelet settings
 * and the kubelet's grace period are read from the Shoot (charts/values/pool-inputs-v150.ts,
 * kubelet-parameters-v150.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Cluster,
  decodeCluster,
  keyV150,
  LABEL,
  type OscFile,
  type OscUnit,
  parseYaml,
} from '../../../api/index.js';
import { provisionContentsV150 } from '../../../charts/operating-system-config/provision-contents-v150.js';
import { reconcileContentsV150 } from '../../../charts/operating-system-config/reconcile-contents-v150.js';
import type { PoolContentsV150 } from '../../../charts/seed-objects-v150.js';
import { osCaBundleV150 } from '../../../charts/values/ca-bundle-v150.js';
import { GARDENLET_GIT_VERSION_V150, imagesV150 } from '../../../charts/values/images-v150.js';
import { kubeletParametersV150 } from '../../../charts/values/kubelet-parameters-v150.js';
import { openTelemetryCollectorIngressHost } from '../../../charts/values/otel-ingress-host.js';
import {
  effectiveKubeletConfig,
  keyV150InputOf,
  nodeMonitorGracePeriodSeconds,
} from '../../../charts/values/pool-inputs-v150.js';
import { RenderValuesSchema } from '../../../charts/values/render-values.js';
import { shootValues, workerPoolContext } from '../../../charts/values/worker-pool-context.js';
import {
  nodeAgentComponentConfigV150,
  nodeInitComponentConfigV150,
} from '../../../components/node-agent/component-config-v150.js';
import { kubeletDataVolumeSize } from '../../../components/node-init/node-init.js';
import { nodeInitV150 } from '../../../components/node-init/node-init-v150.js';
import { exampleCluster, exampleValues, referencePoolCluster } from './v150-render.js';

export interface UpstreamOsc {
  metadata: { name: string; namespace: string; labels: Record<string, string>; resourceVersion?: string };
  spec: { units: OscUnit[]; files: OscFile[] } & Record<string, unknown>;
}

const GOLDEN = join(import.meta.dirname, '../../golden/render-v1.150');

/** Every document of an upstream reference rendering, before its decoded view. */
export function upstreamSeed(file: string): Record<string, unknown>[] {
  const text = readFileSync(join(GOLDEN, file), 'utf8');
  return text
    .slice(0, text.indexOf('\ndecoded:\n') + 1)
    .split(/^---\n/m)
    .map((d) => parseYaml(d) as Record<string, unknown>)
    .filter((d) => d && typeof d === 'object' && 'kind' in d);
}

export function reconcileOscs(file: string): UpstreamOsc[] {
  return upstreamSeed(file)
    .filter(
      (d) =>
        d.kind === 'OperatingSystemConfig' &&
        (d as unknown as UpstreamOsc).metadata.name.endsWith('-original'),
    )
    .map((d) => d as unknown as UpstreamOsc);
}

function decoded(input: unknown): Cluster {
  const result = decodeCluster(input);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

export const UPSTREAM_CASES = [
  { file: 'upstream-reference-pool-seed.yaml', cluster: () => decoded(referencePoolCluster()) },
  { file: 'upstream-example-seed.yaml', cluster: () => decoded(exampleCluster()) },
];

/** Our v1.150.0 image vector for the example values; the comparisons prove it is upstream's. */
export const IMAGES = (() => {
  const images = imagesV150(RenderValuesSchema.parse(exampleValues()));
  return {
    nodeAgent: images.nodeAgent,
    openTelemetryCollector: images.openTelemetryCollector,
    pause: images.pauseContainer,
  };
})();

export function poolContentsV150(cluster: Cluster, osc: UpstreamOsc): PoolContentsV150 {
  const values = exampleValues();
  const shoot = shootValues(cluster, values, true);
  const poolName = osc.metadata.labels['worker.gardener.cloud/pool'];
  const worker = cluster.shoot.spec.provider.workers.find((w) => w.name === poolName);
  if (!worker) throw new Error(`no worker ${poolName}`);
  const ctx = workerPoolContext(cluster, values, shoot, worker);
  const spec = cluster.shoot.spec;
  // our key, read from the Shoot; the comparison with upstream's OSC names fails if it differs
  const key = keyV150(keyV150InputOf(cluster.shoot, worker));
  const caBundle = osCaBundleV150(
    cluster.cloudProfile.spec.caBundle,
    values.caBundles.cluster,
    worker.caBundle,
  );
  const ssh = { sshAccessEnabled: ctx.sshAccessEnabled, sshPublicKeys: ctx.sshPublicKeys };
  const contents = reconcileContentsV150({
    kubeletDataVolumeName: worker.kubeletDataVolumeName,
    rootCertificates: { caBundle },
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
        apiServerUrl: values.apiServerUrl,
        logShipper: values.nodeLogging ? 'opentelemetry-collector' : 'none',
      }),
      gitVersion: GARDENLET_GIT_VERSION_V150,
      caBundle,
      image: IMAGES.nodeAgent,
    },
    logShipper: {
      enabled: values.nodeLogging ?? false,
      ingressHost: openTelemetryCollectorIngressHost(
        cluster.shoot.status?.technicalID ?? cluster.name,
        cluster.seed.spec.ingress?.domain ?? '',
      ),
      caBundle,
      apiServerUrl: values.apiServerUrl,
      image: IMAGES.openTelemetryCollector,
    },
  });
  const image = worker.machine.image;
  const nodeInit = nodeInitV150({
    image: IMAGES.nodeAgent,
    config: nodeInitComponentConfigV150(
      { oscSecretName: key, kubernetesVersion: ctx.kubernetesVersion, apiServerUrl: values.apiServerUrl },
      kubeletDataVolumeSize(worker),
    ),
    gitVersion: GARDENLET_GIT_VERSION_V150,
    clusterCaBundle: values.caBundles.cluster,
  });
  return {
    pool: {
      key,
      pool: worker.name,
      image: image && { name: image.name, version: image.version, providerConfig: image.providerConfig },
      criName: worker.cri?.name,
      pauseImage: IMAGES.pause,
    },
    provision: provisionContentsV150(nodeInit, ssh),
    reconcile: contents,
  };
}
