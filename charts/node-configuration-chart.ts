/**
 * The cdk8s chart of one shoot's node configuration: every rendered object as an ApiObject with
 * its explicit Gardener name (no cdk8s hash suffixes), for cdk8s users (`cdk8s synth`). The bytes
 * of record come from `gardener-osc render`, which serialises `toJson()` through api/'s codec.
 */
import { ApiObject, App, Chart } from 'cdk8s';
import type { Construct } from 'constructs';
import { stringifyYaml } from '../api/index.js';
import {
  type NodeConfigurationInput,
  type RenderedObject,
  renderNodeConfiguration,
} from './node-configuration.js';

export type RenderTarget = 'seed' | 'shoot';

export class NodeConfigurationChart extends Chart {
  readonly warnings: readonly string[];

  constructor(scope: Construct, id: string, input: NodeConfigurationInput & { target: RenderTarget }) {
    super(scope, id, { disableResourceNameHashes: true });
    const rendered = renderNodeConfiguration(input);
    this.warnings = rendered.warnings;
    rendered[input.target].forEach((object: RenderedObject, i) => {
      const { apiVersion, kind, metadata, ...rest } = object as RenderedObject & Record<string, unknown>;
      new ApiObject(this, `${i}-${kind}-${metadata.namespace ?? ''}-${metadata.name}`, {
        apiVersion,
        kind,
        metadata: metadata as never,
        ...rest,
      });
    });
  }
}

/**
 * The YAML `gardener-osc render` prints for `input`, byte for byte: the chart's objects through the
 * api/ codec, one document each.
 */
export function renderNodeConfigurationYaml(
  input: NodeConfigurationInput & { target: RenderTarget },
): string {
  const chart = new NodeConfigurationChart(new App(), 'node-configuration', input);
  return chart
    .toJson()
    .map((o) => stringifyYaml(o))
    .join('---\n');
}
