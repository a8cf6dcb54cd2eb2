/**
 * The shoot secret the legacy downloader fetches (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/executor/executor.go): `kube-system/<LegacyKey>`
 * with the executor script, its ComputeSecretChecksum as `checksum/data-script`, role
 * `cloud-config`.
 */
import {
  ANNOTATION,
  DATA_KEY,
  LABEL,
  LABEL_VALUE,
  NAMESPACE_KUBE_SYSTEM,
  secretChecksum,
} from '../../api/index.js';

export interface ExecutorSecret {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  };
  data: Record<string, string>;
}

export function executorSecret(
  name: string,
  pool: string,
  script: string,
  extraAnnotations: Record<string, string> = {},
): ExecutorSecret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: NAMESPACE_KUBE_SYSTEM,
      labels: { [LABEL.gardenerRole]: LABEL_VALUE.roleCloudConfig, [LABEL.workerPool]: pool },
      annotations: {
        ...extraAnnotations,
        [ANNOTATION.checksumDataScript]: secretChecksum({ [DATA_KEY.script]: script }),
      },
    },
    data: { [DATA_KEY.script]: Buffer.from(script, 'utf8').toString('base64') },
  };
}
