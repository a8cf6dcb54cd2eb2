/**
 * The kubelet component of the v1.150.0 contract against gardenlet v1.150.0's own render
 * (test/golden/render-v1.150/upstream-*.yaml, written by the oracle): the unit and the CA, config
 * and binary files of every pool, byte for byte. The inputs come from the Cluster through the
 * pool values the chart computes (labels, kubelet settings, CAs, cluster DNS); the OSC secret name
 * label from the key upstream chose.
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
  parseYaml,
} from '../../../api/index.js';
import { shootValues, workerPoolContext } from '../../../charts/values/worker-pool-context.js';
import { kubeletV150 } from '../../../components/kubelet/kubelet-v150.js';
import { exampleCluster, exampleValues, referencePoolCluster } from '../support/v150-render.js';

interface UpstreamOsc {
  metadata: { name: string; labels: Record<string, string> };
  spec: { units: OscUnit[]; files: OscFile[] };
}

const GOLDEN = join(import.meta.dirname, '../../golden/render-v1.150');

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

function kubeletOf(cluster: Cluster, osc: UpstreamOsc) {
  const values = exampleValues();
  const shoot = shootValues(cluster, values, true);
  const poolName = osc.metadata.labels['worker.gardener.cloud/pool'];
  const worker = cluster.shoot.spec.provider.workers.find((w) => w.name === poolName);
  if (!worker) throw new Error(`no worker ${poolName}`);
  const ctx = workerPoolContext(cluster, values, shoot, worker);
  const key = osc.metadata.name.replace(/-original$/, '');
  return kubeletV150({
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
  });
}

const CASES = [
  { file: 'upstream-reference-pool-seed.yaml', cluster: () => decoded(referencePoolCluster()) },
  { file: 'upstream-example-seed.yaml', cluster: () => decoded(exampleCluster()) },
];

describe("compat v1.150.0: the kubelet component against upstream's render", () => {
  for (const c of CASES) {
    for (const osc of reconcileOscs(c.file)) {
      it(`writes ${osc.metadata.name}'s kubelet unit and files as upstream (${c.file})`, () => {
        const ours = kubeletOf(c.cluster(), osc);
        expect(ours.units).to.deep.equal(osc.spec.units.filter((u) => u.name === 'kubelet.service'));
        for (const file of ours.files) {
          const theirs = osc.spec.files.find((f) => f.path === file.path);
          expect(file, file.path).to.deep.equal(theirs);
        }
        expect(ours.files).to.have.length(3);
      });
    }
  }
});
