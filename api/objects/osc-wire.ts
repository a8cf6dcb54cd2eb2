/**
 * An OperatingSystemConfig as Go's encoder writes it (extensions v1alpha1 types): a field without
 * `omitempty` is written even when it is empty (`purpose: ""`, `type: ""`, a file's `content: {}`,
 * an inline's `encoding`/`data`, `status: {}`, `metadata.creationTimestamp: null`), an `omitempty`
 * slice or map is left out when empty, and a pointer is written whenever it is set. Fed through the
 * api/ YAML codec, the result has the bytes gardenlet writes for the same object.
 */
import type {
  OperatingSystemConfig,
  OscDropIn,
  OscFile,
  OscSpec,
  OscStatus,
  OscUnit,
} from '../schema/operating-system-config.js';

type Wire = Record<string, unknown>;

/** Drops `undefined` members and omitempty slices/maps that are empty. */
function compact(o: Wire, omitEmpty: readonly string[] = []): Wire {
  const out: Wire = {};
  for (const [key, value] of Object.entries(o)) {
    if (value === undefined) continue;
    if (omitEmpty.includes(key) && isEmpty(value)) continue;
    out[key] = value;
  }
  return out;
}

function isEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return value !== null && typeof value === 'object' && Object.keys(value).length === 0;
}

const dropInWire = (d: OscDropIn): Wire => ({ name: d.name, content: d.content });

export function unitWire(u: OscUnit): Wire {
  return compact(
    {
      name: u.name,
      command: u.command,
      enable: u.enable,
      content: u.content,
      dropIns: u.dropIns?.map(dropInWire),
      filePaths: u.filePaths,
    },
    ['dropIns', 'filePaths'],
  );
}

export function fileWire(f: OscFile): Wire {
  const { secretRef, inline, transmitUnencoded, imageRef } = f.content;
  return compact({
    path: f.path,
    permissions: f.permissions,
    content: compact({
      secretRef: secretRef && { name: secretRef.name, dataKey: secretRef.dataKey },
      inline: inline && { encoding: inline.encoding, data: inline.data },
      transmitUnencoded,
      imageRef: imageRef && { image: imageRef.image, filePathInImage: imageRef.filePathInImage },
    }),
  });
}

function specWire(s: OscSpec): Wire {
  return compact(
    {
      criConfig: s.criConfig && { name: s.criConfig.name },
      type: s.type,
      providerConfig: s.providerConfig,
      purpose: s.purpose,
      reloadConfigFilePath: s.reloadConfigFilePath,
      units: s.units?.map(unitWire),
      files: s.files?.map(fileWire),
    },
    ['units', 'files'],
  );
}

function statusWire(s: OscStatus | undefined): Wire {
  if (!s) return {};
  const lastOperation = s.lastOperation && {
    description: s.lastOperation.description,
    // A zero metav1.Time is written as null.
    lastUpdateTime: s.lastOperation.lastUpdateTime === '' ? null : s.lastOperation.lastUpdateTime,
    progress: s.lastOperation.progress,
    state: s.lastOperation.state,
    type: s.lastOperation.type,
  };
  const lastError =
    s.lastError &&
    compact(
      {
        description: s.lastError.description,
        taskID: s.lastError.taskID,
        codes: s.lastError.codes,
        lastUpdateTime: s.lastError.lastUpdateTime,
      },
      ['codes'],
    );
  const cloudConfig = s.cloudConfig && {
    secretRef: compact({ name: s.cloudConfig.secretRef.name, namespace: s.cloudConfig.secretRef.namespace }, [
      'name',
    ]),
  };
  return compact(
    {
      providerStatus: s.providerStatus,
      conditions: s.conditions,
      lastError,
      lastOperation,
      observedGeneration: s.observedGeneration === 0 ? undefined : s.observedGeneration,
      state: s.state,
      resources: s.resources,
      extensionUnits: s.extensionUnits?.map(unitWire),
      extensionFiles: s.extensionFiles?.map(fileWire),
      cloudConfig,
      command: s.command,
      units: s.units,
      files: s.files,
    },
    ['conditions', 'resources', 'extensionUnits', 'extensionFiles', 'units', 'files'],
  );
}

/** ObjectMeta: every field omitempty but `creationTimestamp`, a struct Go writes as null when zero. */
function metadataWire(m: OperatingSystemConfig['metadata']): Wire {
  const omitEmpty = ['labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields'];
  const out = compact({ ...m, creationTimestamp: m.creationTimestamp ?? null }, omitEmpty);
  for (const key of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion'])
    if (out[key] === '') delete out[key];
  if (out.generation === 0) delete out.generation;
  return out;
}

export function oscWire(osc: OperatingSystemConfig): Wire {
  return {
    apiVersion: osc.apiVersion,
    kind: osc.kind,
    metadata: metadataWire(osc.metadata),
    spec: specWire(osc.spec),
    status: statusWire(osc.status),
  };
}
