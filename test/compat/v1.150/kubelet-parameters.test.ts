/**
 * The kubelet settings v1.150.0 reads from the Shoot (charts/values/kubelet-parameters-v150.ts),
 * written by our kubelet component, against gardenlet v1.150.0's own render of the same Cluster
 * (oracle render op): the fields added since v1.91.4 pass through, the removed systemReserved is
 * dropped as Go's decoder drops it.
 */
import { expect } from 'chai';
import { decodeCluster, keyV150, LABEL, type OscFile } from '../../../api/index.js';
import { kubeletParametersV150 } from '../../../charts/values/kubelet-parameters-v150.js';
import { keyV150InputOf, nodeMonitorGracePeriodSeconds } from '../../../charts/values/pool-inputs-v150.js';
import { shootValues, workerPoolContext } from '../../../charts/values/worker-pool-context.js';
import { kubeletV150 } from '../../../components/kubelet/kubelet-v150.js';
import { oracle150 } from '../support/oracle-150.js';
import { useOracle150 } from '../support/use-oracle-150.js';
import { exampleValues, referencePoolCluster, renderV150 } from '../support/v150-render.js';

const KUBELET = {
  maxParallelImagePulls: 3,
  serializeImagePulls: false,
  singleProcessOOMKill: true,
  imagePullCredentialsVerificationPolicy: 'NeverVerifyAllowlistedImages',
  preloadedImagesVerificationAllowlist: ['registry.example.com/*'],
  systemReserved: { cpu: '100m', memory: '1Gi' },
};

describe('compat v1.150.0: kubelet settings read from the Shoot, against gardenlet v1.150.0', () => {
  useOracle150();

  it('writes the kubelet config of a pool with the settings added since v1.91.4 as upstream', async function () {
    this.timeout(120_000);
    const raw = referencePoolCluster();
    raw.spec.shoot.spec.kubernetes.kubelet = KUBELET;
    const decoded = decodeCluster(raw);
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
    const cluster = decoded.value;
    const values = exampleValues();
    const worker = cluster.shoot.spec.provider.workers[0]!;
    const ctx = workerPoolContext(cluster, values, shootValues(cluster, values, true), worker);
    const key = keyV150(keyV150InputOf(cluster.shoot, worker));
    const ours = kubeletV150({
      params: kubeletParametersV150(
        cluster.shoot.spec.kubernetes.kubelet,
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
    });
    const seed = await renderV150(oracle150(), raw);
    const osc = seed.find(
      (d: { kind: string; metadata: { name: string } }) =>
        d.kind === 'OperatingSystemConfig' && d.metadata.name === `${key}-original`,
    );
    expect(osc, `${key}-original`).to.not.equal(undefined);
    const config = ours.files.find((f) => f.path === '/var/lib/kubelet/config/kubelet');
    const theirs = (osc.spec.files as OscFile[]).find((f) => f.path === config?.path);
    expect(config).to.deep.equal(theirs);
    const text = Buffer.from(config!.content.inline!.data, 'base64').toString();
    expect(text).to.include('maxParallelImagePulls: 3');
    expect(text).to.not.include('systemReserved');
  });
});
