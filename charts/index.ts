/**
 * The package's main entry (`import … from 'gardener-osc'`), the render API: what gardenlet renders
 * for one shoot's node configuration, as plain objects (`renderNodeConfiguration`), as a cdk8s
 * chart (`NodeConfigurationChart`) or as the exact bytes of `gardener-osc render`
 * (`renderNodeConfigurationYaml`). The schemas, types and constants of the contract are
 * `gardener-osc/api`, the YAML codec `gardener-osc/yaml`, the reference OS extension's user-data
 * renderer `gardener-osc/os-local`.
 */

export {
  type NodeConfiguration,
  type NodeConfigurationInput,
  type RenderedObject,
  referenceOsExtension,
  renderNodeConfiguration,
} from './node-configuration.js';
export {
  NodeConfigurationChart,
  type RenderTarget,
  renderNodeConfigurationYaml,
} from './node-configuration-chart.js';
export { NotInContractV150Error, renderNodeConfigurationV150 } from './node-configuration-v150.js';
export { type RenderValues, RenderValuesSchema } from './values/render-values.js';
