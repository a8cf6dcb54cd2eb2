/**
 * The shoot secret every node agent of a pool watches (seed-side §5.3): the reconcile OSC as
 * `osc.yaml`, secret references resolved inline. Unlike gardenlet v1.91 the embedded object carries
 * no volatile metadata or status (timestamps, operation annotations, lastOperation, ...), so its
 * checksum changes only when what a node must run changes (docs/compatibility.md).
 */
import {
  ANNOTATION,
  DATA_KEY,
  LABEL,
  LABEL_VALUE,
  NAMESPACE_KUBE_SYSTEM,
  type OperatingSystemConfig,
  type OscFile,
  sha256Hex,
  stringifyYaml,
} from '../../api/index.js';

/** Resolves `secretRef` file contents from seed secrets (`name -> dataKey -> value`). */
export type SeedSecretData = (name: string, dataKey: string) => string | undefined;

function inlineSecretRefs(
  files: readonly OscFile[] | undefined,
  resolve: SeedSecretData,
): OscFile[] | undefined {
  return files?.map((file) => {
    const ref = file.content.secretRef;
    if (!ref) return file;
    const value = resolve(ref.name, ref.dataKey);
    if (value === undefined)
      throw new Error(`cannot resolve secret ref from osc: secret ${ref.name} has no key ${ref.dataKey}`);
    const { secretRef: _resolved, ...rest } = file.content;
    return {
      ...file,
      content: { ...rest, inline: { encoding: 'b64', data: Buffer.from(value, 'utf8').toString('base64') } },
    };
  });
}

/** The `osc.yaml` bytes: the node-relevant part of the reconcile OSC. */
export function oscYaml(osc: OperatingSystemConfig, resolve: SeedSecretData): string {
  const status = osc.status ?? {};
  return stringifyYaml({
    apiVersion: osc.apiVersion,
    kind: osc.kind,
    metadata: { name: osc.metadata.name, labels: osc.metadata.labels, creationTimestamp: null },
    spec: { ...osc.spec, files: inlineSecretRefs(osc.spec.files, resolve) },
    status: {
      extensionUnits: status.extensionUnits,
      extensionFiles: inlineSecretRefs(status.extensionFiles, resolve),
    },
  });
}

export interface ShootSecret {
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

export function oscSecret(
  osc: OperatingSystemConfig,
  secretName: string,
  pool: string,
  resolve: SeedSecretData,
): ShootSecret {
  const yaml = oscYaml(osc, resolve);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: secretName,
      namespace: NAMESPACE_KUBE_SYSTEM,
      labels: { [LABEL.gardenerRole]: LABEL_VALUE.roleOperatingSystemConfig, [LABEL.workerPool]: pool },
      annotations: { [ANNOTATION.checksumDataScript]: sha256Hex(yaml) },
    },
    data: { [DATA_KEY.osc]: Buffer.from(yaml, 'utf8').toString('base64') },
  };
}
