/**
 * The kubelet component of the v1.150.0 contract against gardenlet v1.150.0's own render
 * (test/golden/render-v1.150/upstream-*.yaml, written by the oracle): the unit and the CA, config
 * and binary files of every pool, byte for byte. The inputs come from the Cluster through the
 * pool values the chart computes (labels, kubelet settings, CAs, cluster DNS); the OSC secret name
 * label from the key upstream chose.
 */
import { expect } from 'chai';
import { type Cluster, LABEL } from '../../../api/index.js';
import { shootValues, workerPoolContext } from '../../../charts/values/worker-pool-context.js';
import { kubeletV150 } from '../../../components/kubelet/kubelet-v150.js';
import { reconcileOscs, UPSTREAM_CASES, type UpstreamOsc } from '../support/v150-pool-contents.js';
import { exampleValues } from '../support/v150-render.js';

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

describe("compat v1.150.0: the kubelet component against upstream's render", () => {
  for (const c of UPSTREAM_CASES) {
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
