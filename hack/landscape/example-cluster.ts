/**
 * The Cluster every landscape starts from: examples/cluster.yaml, the example shoot with its
 * worker pools, as the demo, the benchmarks and the integration tests put it into their seed.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseYaml } from '../../api/index.js';
import type { ClusterObject } from './cluster-object.js';

export const EXAMPLE_CLUSTER_FILE = join(resolve(import.meta.dirname, '../..'), 'examples/cluster.yaml');

/** The same shoot for the v1.150.0 contract (annotated so), with Kubernetes versions it supports. */
export const EXAMPLE_CLUSTER_V150_FILE = join(
  resolve(import.meta.dirname, '../..'),
  'examples/cluster-v1.150.yaml',
);

/** A fresh copy of examples/cluster.yaml (callers change its metadata before creating it). */
export function exampleCluster(file = EXAMPLE_CLUSTER_FILE): ClusterObject {
  return parseYaml(readFileSync(file, 'utf8')) as ClusterObject;
}
