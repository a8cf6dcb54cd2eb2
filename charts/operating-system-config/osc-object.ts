/**
 * An OperatingSystemConfig object as gardenlet creates it in the shoot namespace of the seed
 * (gardener v1.91.4 pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go): name
 * `<key><suffix>`, operation and timestamp annotations, the pool label.
 */
import {
  ANNOTATION,
  formatRfc3339Nano,
  type Instant,
  keySuffix,
  LABEL,
  OPERATION,
  type OperatingSystemConfig,
  OSC_API_VERSION,
  OSC_KIND,
  PATH,
  type Worker,
} from '../../api/index.js';
import type { ComponentContext, ComponentOutput } from '../../components/component.js';
import type { Purpose } from './osc-contents.js';

export function oscName(ctx: ComponentContext, worker: Worker, purpose: Purpose): string {
  return ctx.key + keySuffix(worker.machine.image?.name ?? '', purpose, ctx.useGardenerNodeAgent);
}

export function oscObject(
  ctx: ComponentContext,
  worker: Worker,
  purpose: Purpose,
  contents: ComponentOutput,
  namespace: string,
  now: Instant,
): OperatingSystemConfig {
  const image = worker.machine.image;
  return {
    apiVersion: OSC_API_VERSION,
    kind: OSC_KIND,
    metadata: {
      name: oscName(ctx, worker, purpose),
      namespace,
      labels: { [LABEL.workerPool]: worker.name },
      annotations: {
        [ANNOTATION.operation]: OPERATION.reconcile,
        [ANNOTATION.timestamp]: formatRfc3339Nano(now),
      },
    },
    spec: {
      ...(worker.cri ? { criConfig: { name: worker.cri.name } } : {}),
      type: image?.name ?? '',
      ...(image?.providerConfig ? { providerConfig: image.providerConfig } : {}),
      purpose,
      ...(purpose === 'reconcile' ? { reloadConfigFilePath: PATH.downloaderCloudConfig } : {}),
      units: contents.units,
      files: contents.files,
    },
  };
}
