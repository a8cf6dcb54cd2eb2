/**
 * The shoot secret every node agent of a pool watches (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/secrets.go): the
 * reconcile OSC as `osc.yaml`, secret references resolved inline, written as Go writes it. Unlike
 * gardenlet v1.91 the embedded object leaves out what changes on every reconcile without changing
 * what a node runs (the operation and timestamp annotations, the status but the extension's units
 * and files), so its checksum changes only when what a node must run changes (docs/compatibility.md
 * 10).
 */
import {
  ANNOTATION,
  DATA_KEY,
  LABEL,
  LABEL_VALUE,
  NAMESPACE_KUBE_SYSTEM,
  type OperatingSystemConfig,
  type OscFile,
  oscWire,
  sha256Hex,
  stringifyYaml,
} from '../../api/index.js';

/** The data of a seed secret in the OSC's namespace by name, as bytes; undefined when there is none. */
export type SeedSecrets = (name: string) => Readonly<Record<string, Uint8Array | string>> | undefined;

/** Annotations that change on every reconcile (docs/compatibility.md 10) and mean nothing to a node. */
const VOLATILE_ANNOTATIONS: readonly string[] = [ANNOTATION.operation, ANNOTATION.timestamp];

export class SecretRefError extends Error {
  constructor(detail: string) {
    super(`cannot resolve secret ref from osc: ${detail}`);
    this.name = 'SecretRefError';
  }
}

function secretBytes(secrets: SeedSecrets, name: string, dataKey: string): Buffer {
  const data = secrets(name);
  // Upstream's wording (a client Get's NotFound error), so both fail the same way.
  if (data === undefined) throw new SecretRefError(`secrets ${JSON.stringify(name)} not found`);
  const value = Object.hasOwn(data, dataKey) ? data[dataKey] : undefined;
  // Upstream inlines an empty file here; an empty CA bundle or script is never what was meant.
  if (value === undefined)
    throw new SecretRefError(`secret ${JSON.stringify(name)} has no data key ${JSON.stringify(dataKey)}`);
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
}

export function inlineSecretRefs(
  files: readonly OscFile[] | undefined,
  secrets: SeedSecrets,
): OscFile[] | undefined {
  return files?.map((file) => {
    const ref = file.content.secretRef;
    if (!ref) return file;
    // The exact bytes, base64: text or not, the node writes what the secret holds.
    const data = secretBytes(secrets, ref.name, ref.dataKey).toString('base64');
    const { secretRef: _resolved, ...rest } = file.content;
    return { ...file, content: { ...rest, inline: { encoding: 'b64', data } } };
  });
}

function stableAnnotations(
  annotations: Record<string, string> | undefined,
): Record<string, string> | undefined {
  if (!annotations) return undefined;
  return Object.fromEntries(Object.entries(annotations).filter(([k]) => !VOLATILE_ANNOTATIONS.includes(k)));
}

/** The `osc.yaml` bytes: the node-relevant part of the reconcile OSC, as Go's encoder writes it. */
export function oscYaml(osc: OperatingSystemConfig, secrets: SeedSecrets): string {
  const status = osc.status ?? {};
  return stringifyYaml(
    oscWire({
      apiVersion: osc.apiVersion,
      kind: osc.kind,
      metadata: {
        name: osc.metadata.name,
        labels: osc.metadata.labels,
        annotations: stableAnnotations(osc.metadata.annotations),
      },
      spec: { ...osc.spec, files: inlineSecretRefs(osc.spec.files, secrets) },
      status: {
        extensionUnits: status.extensionUnits,
        // Upstream leaves these references for the agent, which cannot read seed secrets.
        extensionFiles: inlineSecretRefs(status.extensionFiles, secrets),
      },
    }),
  );
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
  secrets: SeedSecrets,
): ShootSecret {
  return oscSecretOf(oscYaml(osc, secrets), secretName, pool);
}

/**
 * The OSC secret of a worker pool around its `osc.yaml`, whichever contract wrote that: the same
 * name, labels, checksum annotation and data key in v1.91.4 and v1.150.0.
 */
export function oscSecretOf(yaml: string, secretName: string, pool: string): ShootSecret {
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
