/**
 * The system components of the v1.150.0 reconcile OSC (root certificates, containerd, journald,
 * kernel config) against gardenlet v1.150.0's own render (test/golden/render-v1.150/upstream-*.yaml,
 * written by the oracle): their units and files in every pool, byte for byte, from the inputs the
 * Cluster gives.
 */
import { expect } from 'chai';
import type { Cluster } from '../../../api/index.js';
import { osCaBundleV150 } from '../../../charts/values/ca-bundle-v150.js';
import type { ComponentOutput } from '../../../components/component.js';
import { containerdV150 } from '../../../components/containerd/containerd-v150.js';
import { journald } from '../../../components/journald/journald.js';
import { kernelConfigV150 } from '../../../components/kernel-config/kernel-config-v150.js';
import { rootCertificatesV150 } from '../../../components/root-certificates/root-certificates-v150.js';
import { componentContext } from '../../components/support.js';
import { reconcileOscs, UPSTREAM_CASES } from '../support/v150-pool-contents.js';
import { exampleValues } from '../support/v150-render.js';

function components(cluster: Cluster, poolName: string): Record<string, ComponentOutput> {
  const worker = cluster.shoot.spec.provider.workers.find((w) => w.name === poolName);
  if (!worker) throw new Error(`no worker ${poolName}`);
  const spec = cluster.shoot.spec;
  const kubelet = worker.kubernetes?.kubelet ?? spec.kubernetes.kubelet;
  const values = exampleValues();
  return {
    'root certificates': rootCertificatesV150({
      caBundle: osCaBundleV150(cluster.cloudProfile.spec.caBundle, values.caBundles.cluster, worker.caBundle),
    }),
    containerd: containerdV150(),
    journald: journald(componentContext()),
    'kernel config': kernelConfigV150({
      kubeProxyEnabled: spec.kubernetes.kubeProxy?.enabled === true,
      protectKernelDefaults: kubelet?.protectKernelDefaults,
      sysctls: worker.sysctls ?? {},
    }),
  };
}

describe("compat v1.150.0: the system components against upstream's render", () => {
  for (const c of UPSTREAM_CASES) {
    for (const osc of reconcileOscs(c.file)) {
      const pool = osc.metadata.labels['worker.gardener.cloud/pool'] ?? '';
      it(`writes ${osc.metadata.name}'s root certificates, containerd, journald and kernel config as upstream`, () => {
        for (const [name, ours] of Object.entries(components(c.cluster(), pool))) {
          for (const unit of ours.units)
            expect(unit, `${name}: ${unit.name}`).to.deep.equal(
              osc.spec.units.find((u) => u.name === unit.name),
            );
          for (const file of ours.files)
            expect(file, `${name}: ${file.path}`).to.deep.equal(
              osc.spec.files.find((f) => f.path === file.path),
            );
        }
      });
    }
  }
});
