/**
 * Everything gardenlet v1.150.0 writes into the seed for the reference pool and for the example
 * Cluster's three pools (test/golden/render-v1.150/upstream-*.yaml, written by the oracle),
 * assembled from our pool contents: both OSCs, the ManagedResource secrets with their compressed
 * OSC secret and RBAC, and ManagedResource shoot-gardener-node-agent, byte for byte. The one
 * declared difference, gardener-user's run.sh (V150-2), would change the OSC secret, its checksum
 * and the names derived from it, so it is set to upstream's bytes here and compared on its own in
 * reconcile-osc.test.ts.
 */
import { expect } from 'chai';
import { parseRfc3339, stringifyYaml } from '../../../api/index.js';
import { seedObjectsV150 } from '../../../charts/seed-objects-v150.js';
import type { ComponentOutput } from '../../../components/component.js';
import {
  poolContentsV150,
  reconcileOscs,
  UPSTREAM_CASES,
  upstreamSeed,
} from '../support/v150-pool-contents.js';
import { RENDER_NOW } from '../support/v150-render.js';

const RUN_SH = '/var/lib/gardener-user/run.sh';

// biome-ignore lint/suspicious/noExplicitAny: plain JSON documents
type Json = any;

/** Without what the oracle's fake client adds, secretRefs by name (gardenlet adds them in map order). */
function comparable(o: Json): Json {
  const { resourceVersion: _, ...metadata } = o.metadata;
  const copy: Json = { ...o, metadata };
  if (o.kind === 'OperatingSystemConfig' || o.kind === 'ManagedResource') delete copy.status;
  if (o.kind === 'ManagedResource')
    copy.spec = {
      ...o.spec,
      secretRefs: [...o.spec.secretRefs].sort((a: Json, b: Json) => a.name.localeCompare(b.name)),
    };
  return copy;
}

const byKindAndName = (a: Json, b: Json) =>
  `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`);

describe("compat v1.150.0: the seed objects against upstream's render", () => {
  for (const c of UPSTREAM_CASES) {
    it(`writes the OSCs, ManagedResource secrets and ManagedResource as gardenlet v1.150.0 (${c.file})`, () => {
      const oscs = reconcileOscs(c.file);
      const upstreamRunSh = oscs[0]?.spec.files.find((f) => f.path === RUN_SH);
      const withUpstreamRunSh = (out: ComponentOutput): ComponentOutput => ({
        ...out,
        files: out.files.map((f) => (f.path === RUN_SH && upstreamRunSh ? upstreamRunSh : f)),
      });
      const cluster = c.cluster();
      const pools = oscs.map((osc) => {
        const contents = poolContentsV150(cluster, osc);
        return {
          ...contents,
          provision: withUpstreamRunSh(contents.provision),
          reconcile: withUpstreamRunSh(contents.reconcile),
        };
      });
      const ours = seedObjectsV150(
        pools,
        oscs[0]!.metadata.namespace,
        parseRfc3339(RENDER_NOW),
        () => undefined,
      );
      const upstream = upstreamSeed(c.file);
      expect(ours.seed).to.have.length(upstream.length);
      const text = (objects: Json[]) =>
        objects.map(comparable).sort(byKindAndName).map(stringifyYaml).join('---\n');
      expect(text(ours.seed)).to.equal(text(upstream));
    });
  }
});
