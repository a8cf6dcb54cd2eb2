/**
 * The Gardener way to install the controller-manager (and the os-local OS extension it carries):
 * a ControllerRegistration naming the extension kinds and types it serves, and a ControllerDeployment
 * of type `helm` whose providerConfig holds the chart (helm-chart.ts) and its values, as gardenlet
 * v1.91 reads them (`{chart: <base64 .tgz>, values: {...}}`).
 *
 * Policy `AlwaysExceptNoShoots`: the seed-side node configuration is needed on every seed that has
 * shoots, whether or not one of them uses an os-local type.
 */
import { VERSION } from '../../api/version.js';
import { CONTROLLER_MANAGER_NAME } from './controller-manager.js';
import { type ChartValues, chartArchive } from './helm-chart.js';

export const CORE_GARDENER_V1BETA1 = 'core.gardener.cloud/v1beta1';
export const REGISTRATION_NAME = 'gardener-osc';

export interface RegistrationInput extends ChartValues {
  /** Name of both objects (a DNS label). */
  readonly name?: string;
  /** The os-local types to register as OperatingSystemConfig extension types (none: os-local is off). */
  readonly osLocalTypes: readonly string[];
}

export function controllerRegistrationObjects(input: RegistrationInput): Record<string, unknown>[] {
  const name = input.name ?? REGISTRATION_NAME;
  const labels = { 'app.kubernetes.io/name': CONTROLLER_MANAGER_NAME, 'app.kubernetes.io/version': VERSION };
  const values: ChartValues = {
    image: input.image,
    replicas: input.replicas,
    ...(input.priorityClassName ? { priorityClassName: input.priorityClassName } : {}),
    vpa: { enabled: input.vpa?.enabled ?? true },
    config: input.config,
  };
  return [
    {
      apiVersion: CORE_GARDENER_V1BETA1,
      kind: 'ControllerDeployment',
      metadata: { name, labels },
      type: 'helm',
      providerConfig: { chart: chartArchive(values).toString('base64'), values },
    },
    {
      apiVersion: CORE_GARDENER_V1BETA1,
      kind: 'ControllerRegistration',
      metadata: { name, labels },
      spec: {
        ...(input.osLocalTypes.length > 0
          ? { resources: input.osLocalTypes.map((type) => ({ kind: 'OperatingSystemConfig', type })) }
          : {}),
        deployment: { policy: 'AlwaysExceptNoShoots', deploymentRefs: [{ name }] },
      },
    },
  ];
}
