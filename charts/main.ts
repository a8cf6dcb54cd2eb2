/** The cdk8s app (`cdk8s synth`, see cdk8s.yaml): renders examples/cluster.yaml for the seed. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'cdk8s';
import { decodeCluster, parseRfc3339, parseYaml } from '../api/index.js';
import { NodeConfigurationChart } from './node-configuration-chart.js';
import { RenderValuesSchema } from './values/render-values.js';

const examples = join(import.meta.dirname, '..', 'examples');
const cluster = decodeCluster(parseYaml(readFileSync(join(examples, 'cluster.yaml'), 'utf8')));
if (!cluster.ok) throw new Error(`examples/cluster.yaml: ${JSON.stringify(cluster.errors)}`);
const values = RenderValuesSchema.parse(parseYaml(readFileSync(join(examples, 'values.yaml'), 'utf8')));
const app = new App();
new NodeConfigurationChart(app, 'node-configuration', {
  cluster: cluster.value,
  values,
  useGardenerNodeAgent: true,
  legacyNodes: false,
  now: parseRfc3339('2024-01-01T00:00:00Z'),
  target: 'seed',
});
app.synth();
