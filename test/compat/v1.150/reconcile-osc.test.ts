/**
 * Whole reconcile OSCs of the v1.150.0 contract against gardenlet v1.150.0's own render
 * (test/golden/render-v1.150/upstream-*.yaml, written by the oracle): metadata and spec of every
 * pool of the reference Cluster and of the example Cluster, every unit and file in upstream's
 * order, byte for byte, but for gardener-user's run.sh (V150-2 in docs/compatibility.md). The
 * inputs come from the Cluster and the example values; the key from upstream's OSC name (keys are
 * compared with operatingsystemconfig.Key in render-parts.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  type Cluster,
  decodeCluster,
  LABEL,
  type OscFile,
  type OscUnit,
  parseRfc3339,
  parseYaml,
  stringifyYaml,
} from '../../../api/index.js';
import { oscObjectV150 } from '../../../charts/operating-system-config/osc-object-v150.js';
import { reconcileContentsV150 } from '../../../charts/operating-system-config/reconcile-contents-v150.js';
import { osCaBundleV150 } from '../../../charts/values/ca-bundle-v150.js';
import { openTelemetryCollectorIngressHost } from '../../../charts/values/otel-ingress-host.js';
import { shootValues, workerPoolContext } from '../../../charts/values/worker-pool-context.js';
import { nodeAgentComponentConfigV150 } from '../../../components/node-agent/component-config-v150.js';
import { exampleCluster, exampleValues, RENDER_NOW, referencePoolCluster } from '../support/v150-render.js';

interface UpstreamOsc {
  metadata: { name: string; namespace: string; labels: Record<string, string>; resourceVersion?: string };
  spec: { units: OscUnit[]; files: OscFile[] } & Record<string, unknown>;
}

const GOLDEN = join(import.meta.dirname, '../../golden/render-v1.150');
const RUN_SH = '/var/lib/gardener-user/run.sh';
/** The oracle's image vector. */
const IMAGES = {
  nodeAgent: 'europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.150.0',
  openTelemetryCollector:
    'europe-docker.pkg.dev/gardener-project/releases/gardener/observability/opentelemetry-collector:v0.0.1',
  pause: 'registry.k8s.io/pause:3.10',
};

function reconcileOscs(file: string): UpstreamOsc[] {
  return readFileSync(join(GOLDEN, file), 'utf8')
    .split(/^---\n/m)
    .map((d) => parseYaml(d) as { kind?: string; metadata?: { name?: string } })
    .filter((d) => d.kind === 'OperatingSystemConfig' && d.metadata?.name?.endsWith('-original'))
    .map((d) => d as unknown as UpstreamOsc);
}

function decoded(input: unknown): Cluster {
  const result = decodeCluster(input);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

function ours(cluster: Cluster, osc: UpstreamOsc): Record<string, unknown> {
  const values = exampleValues();
  const shoot = shootValues(cluster, values, true);
  const poolName = osc.metadata.labels['worker.gardener.cloud/pool'];
  const worker = cluster.shoot.spec.provider.workers.find((w) => w.name === poolName);
  if (!worker) throw new Error(`no worker ${poolName}`);
  const ctx = workerPoolContext(cluster, values, shoot, worker);
  const spec = cluster.shoot.spec;
  const key = osc.metadata.name.replace(/-original$/, '');
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
      params: ctx.kubeletConfigParameters,
      clusterDnsAddresses: [ctx.clusterDnsAddress],
      clusterDomain: ctx.clusterDomain,
      taints: worker.taints ?? [],
      kubernetesVersion: ctx.kubernetesVersion,
      criName: ctx.criName,
      nodeLabels: { ...ctx.nodeLabels, [LABEL.nodeAgentSecretName]: key },
      preferIPv6: ctx.preferIPv6,
      kubeletCaBundle: ctx.kubeletCaBundle,
      hyperkubeImage: ctx.images.hyperkube ?? '',
      nodeMonitorGracePeriodSeconds: 40,
    },
    ssh,
    nodeAgent: {
      config: nodeAgentComponentConfigV150({
        oscSecretName: key,
        kubernetesVersion: ctx.kubernetesVersion,
        apiServerUrl: values.apiServerUrl,
        logShipper: values.nodeLogging ? 'opentelemetry-collector' : 'none',
      }),
      gitVersion: 'v1.150.0',
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
  return oscObjectV150(
    {
      key,
      pool: worker.name,
      image: image && { name: image.name, version: image.version, providerConfig: image.providerConfig },
      criName: worker.cri?.name,
      pauseImage: IMAGES.pause,
    },
    'reconcile',
    contents,
    osc.metadata.namespace,
    parseRfc3339(RENDER_NOW),
  );
}

/** The OSC without gardener-user's run.sh (V150-2), as YAML, so a failure shows the line. */
const withoutRunSh = (o: { spec: unknown; metadata: unknown }) => {
  const copy = structuredClone(o) as UpstreamOsc;
  delete copy.metadata.resourceVersion;
  copy.spec.files = copy.spec.files.filter((f) => f.path !== RUN_SH);
  return stringifyYaml({ metadata: copy.metadata, spec: copy.spec });
};

const CASES = [
  { file: 'upstream-reference-pool-seed.yaml', cluster: () => decoded(referencePoolCluster()) },
  { file: 'upstream-example-seed.yaml', cluster: () => decoded(exampleCluster()) },
];

describe("compat v1.150.0: whole reconcile OSCs against upstream's render", () => {
  for (const c of CASES) {
    for (const osc of reconcileOscs(c.file)) {
      it(`writes ${osc.metadata.name} as upstream, but for gardener-user run.sh (V150-2)`, () => {
        const rendered = ours(c.cluster(), osc) as unknown as UpstreamOsc;
        expect(withoutRunSh(rendered)).to.equal(withoutRunSh(osc));
        const runSh = (o: UpstreamOsc) => o.spec.files.find((f) => f.path === RUN_SH);
        expect(runSh(rendered)?.permissions).to.equal(runSh(osc)?.permissions);
      });
    }
  }
});
