/**
 * The Secret an agent reads its OperatingSystemConfig from, as the seed writes it into the shoot's
 * kube-system: `osc.yaml` and its checksum in `checksum/data-script`, which the agent compares with
 * what it applied last (gardener v1.91.4 pkg/nodeagent/controller/operatingsystemconfig/reconciler.go).
 */
import { ANNOTATION, LABEL, LABEL_VALUE, sha256Hex } from '../../api/index.js';

export function oscSecretObject(o: {
  readonly name: string;
  readonly oscYaml: string;
  /** Labels it as the OSC secret of this worker pool, as the seed does. */
  readonly pool?: string;
  /** Its labels as given (e.g. those of a rendered secret), instead. */
  readonly labels?: Record<string, string>;
}) {
  const labels =
    o.labels ??
    (o.pool
      ? { [LABEL.gardenerRole]: LABEL_VALUE.roleOperatingSystemConfig, [LABEL.workerPool]: o.pool }
      : undefined);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: o.name,
      namespace: 'kube-system',
      ...(labels ? { labels } : {}),
      annotations: { [ANNOTATION.checksumDataScript]: sha256Hex(o.oscYaml) },
    },
    data: { 'osc.yaml': Buffer.from(o.oscYaml).toString('base64') },
  };
}
