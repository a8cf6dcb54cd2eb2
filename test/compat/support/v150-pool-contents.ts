/**
 * The pools of upstream's reference renderings (test/golden/render-v1.150/upstream-*.yaml) and
 * our contents of each (charts/pool-contents-v150.ts) from the same Cluster and the example values
 * (examples/values.yaml), with our v1.150.0 image vector.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Cluster, decodeCluster, type OscFile, type OscUnit, parseYaml } from '../../../api/index.js';
import { poolContentsV150 as productionPoolContentsV150 } from '../../../charts/pool-contents-v150.js';
import type { PoolContentsV150 } from '../../../charts/seed-objects-v150.js';
import { imagesV150 } from '../../../charts/values/images-v150.js';
import { RenderValuesSchema } from '../../../charts/values/render-values.js';
import { shootValues } from '../../../charts/values/worker-pool-context.js';
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

/** Our contents of the pool an upstream reconcile OSC belongs to, from the example values. */
export function poolContentsV150(cluster: Cluster, osc: UpstreamOsc): PoolContentsV150 {
  const values = RenderValuesSchema.parse(exampleValues());
  const poolName = osc.metadata.labels['worker.gardener.cloud/pool'];
  const worker = cluster.shoot.spec.provider.workers.find((w) => w.name === poolName);
  if (!worker) throw new Error(`no worker ${poolName}`);
  return productionPoolContentsV150({
    cluster,
    values,
    shoot: shootValues(cluster, values, true),
    worker,
    images: imagesV150(values),
    openTelemetryCollector: true,
  });
}
