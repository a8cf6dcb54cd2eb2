/**
 * Whole reconcile OSCs of the v1.150.0 contract against gardenlet v1.150.0's own render
 * (test/golden/render-v1.150/upstream-*.yaml, written by the oracle): metadata and spec of every
 * pool of the reference Cluster and of the example Cluster, every unit and file in upstream's
 * order, byte for byte, but for gardener-user's run.sh (V150-2 in docs/compatibility.md).
 */
import { expect } from 'chai';
import { parseRfc3339, stringifyYaml } from '../../../api/index.js';
import { oscObjectV150 } from '../../../charts/operating-system-config/osc-object-v150.js';
import {
  poolContentsV150,
  reconcileOscs,
  UPSTREAM_CASES,
  type UpstreamOsc,
} from '../support/v150-pool-contents.js';
import { RENDER_NOW } from '../support/v150-render.js';

const RUN_SH = '/var/lib/gardener-user/run.sh';

/** The OSC without gardener-user's run.sh (V150-2), as YAML, so a failure shows the line. */
const withoutRunSh = (o: { spec: unknown; metadata: unknown }) => {
  const copy = structuredClone(o) as UpstreamOsc;
  delete copy.metadata.resourceVersion;
  copy.spec.files = copy.spec.files.filter((f) => f.path !== RUN_SH);
  return stringifyYaml({ metadata: copy.metadata, spec: copy.spec });
};

describe("compat v1.150.0: whole reconcile OSCs against upstream's render", () => {
  for (const c of UPSTREAM_CASES) {
    for (const osc of reconcileOscs(c.file)) {
      it(`writes ${osc.metadata.name} as upstream, but for gardener-user run.sh (V150-2)`, () => {
        const { pool, reconcile } = poolContentsV150(c.cluster(), osc);
        const rendered = oscObjectV150(
          pool,
          'reconcile',
          reconcile,
          osc.metadata.namespace,
          parseRfc3339(RENDER_NOW),
        ) as unknown as UpstreamOsc;
        expect(withoutRunSh(rendered)).to.equal(withoutRunSh(osc));
        const runSh = (o: UpstreamOsc) => o.spec.files.find((f) => f.path === RUN_SH);
        expect(runSh(rendered)?.permissions).to.equal(runSh(osc)?.permissions);
      });
    }
  }
});
