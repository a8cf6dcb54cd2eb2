/**
 * An OperatingSystemConfig as Go's encoder writes it (extensions v1alpha1 types): a field without
 * `omitempty` is written even when it is empty (`purpose: ""`, `type: ""`, a file's `content: {}`,
 * an inline's `encoding`/`data`, `status: {}`, `metadata.creationTimestamp: null`), an `omitempty`
 * slice or map is left out when empty, and a pointer is written whenever it is set. Fed through the
 * api/ YAML codec, the result has the bytes gardenlet writes for the same object.
 *
 * Per contract: v1.91.4 writes its fields (`reloadConfigFilePath`, the legacy status `command`,
 * `units`, `files`) and a zero `creationTimestamp` as null; v1.150.0 writes its own (`class`,
 * containerd's configuration and cgroup driver in `criConfig`, a file's `hostName`,
 * `inPlaceUpdates`; gardener v1.150.0 pkg/apis/extensions/v1alpha1/types_operatingsystemconfig.go)
 * and, with apimachinery's `omitzero`, no zero `creationTimestamp`. A field of the other contract
 * is dropped, as that Go decoder drops what it does not know.
 */
import type { GardenerVersion } from '../gardener-version.js';
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

export function fileWire(f: OscFile, contract: GardenerVersion = 'v1.91.4'): Wire {
  const { secretRef, inline, transmitUnencoded, imageRef } = f.content;
  return compact({
    path: f.path,
    permissions: f.permissions,
    ...(contract === 'v1.150.0' ? { hostName: f.hostName } : {}),
    content: compact({
      secretRef: secretRef && { name: secretRef.name, dataKey: secretRef.dataKey },
      inline: inline && { encoding: inline.encoding, data: inline.data },
      transmitUnencoded,
      imageRef: imageRef && { image: imageRef.image, filePathInImage: imageRef.filePathInImage },
    }),
  });
}

type CriConfig = NonNullable<OscSpec['criConfig']>;
type Containerd = NonNullable<CriConfig['containerd']>;

function containerdWire(c: Containerd): Wire {
  return compact(
    {
      registries: c.registries?.map((r) =>
        compact(
          {
            upstream: r.upstream,
            server: r.server,
            hosts: r.hosts?.map((h) =>
              compact(
                {
                  url: h.url,
                  capabilities: h.capabilities,
                  caCerts: h.caCerts,
                  overridePath: h.overridePath,
                },
                ['capabilities', 'caCerts'],
              ),
            ),
            readinessProbe: r.readinessProbe,
          },
          ['hosts'],
        ),
      ),
      sandboxImage: c.sandboxImage,
      plugins: c.plugins?.map((p) => compact({ op: p.op, path: p.path ?? null, values: p.values })),
    },
    ['registries', 'plugins'],
  );
}

function criConfigWire(c: CriConfig, contract: GardenerVersion): Wire {
  if (contract !== 'v1.150.0') return { name: c.name };
  return compact({
    name: c.name,
    cgroupDriver: c.cgroupDriver,
    containerd: c.containerd && containerdWire(c.containerd),
  });
}

function inPlaceUpdatesWire(u: NonNullable<OscSpec['inPlaceUpdates']>): Wire {
  const rotation = u.credentialsRotation;
  const lastInitiation = (r: { lastInitiationTime?: string | undefined } | undefined) =>
    r && compact({ lastInitiationTime: r.lastInitiationTime });
  return compact({
    operatingSystemVersion: u.operatingSystemVersion,
    kubelet: u.kubelet,
    credentialsRotation:
      rotation &&
      compact({
        certificateAuthorities: lastInitiation(rotation.certificateAuthorities),
        serviceAccountKey: lastInitiation(rotation.serviceAccountKey),
      }),
  });
}

function specWire(s: OscSpec, contract: GardenerVersion): Wire {
  const v150 = contract === 'v1.150.0';
  return compact(
    {
      criConfig: s.criConfig && criConfigWire(s.criConfig, contract),
      type: s.type,
      class: v150 ? s.class : undefined,
      providerConfig: s.providerConfig,
      purpose: s.purpose,
      reloadConfigFilePath: v150 ? undefined : s.reloadConfigFilePath,
      units: s.units?.map(unitWire),
      files: s.files?.map((f) => fileWire(f, contract)),
      inPlaceUpdates: v150 && s.inPlaceUpdates ? inPlaceUpdatesWire(s.inPlaceUpdates) : undefined,
    },
    ['units', 'files'],
  );
}

function statusWire(s: OscStatus | undefined, contract: GardenerVersion): Wire {
  if (!s) return {};
  const v150 = contract === 'v1.150.0';
  const osUpdate = s.inPlaceUpdates?.osUpdate;
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
      extensionFiles: s.extensionFiles?.map((f) => fileWire(f, contract)),
      cloudConfig,
      inPlaceUpdates:
        v150 && s.inPlaceUpdates
          ? compact({
              osUpdate: osUpdate && compact({ command: osUpdate.command, args: osUpdate.args }, ['args']),
            })
          : undefined,
      command: v150 ? undefined : s.command,
      units: v150 ? undefined : s.units,
      files: v150 ? undefined : s.files,
    },
    ['conditions', 'resources', 'extensionUnits', 'extensionFiles', 'units', 'files'],
  );
}

/**
 * ObjectMeta: every field omitempty but `creationTimestamp`, a struct v1.91.4's Go writes as null
 * when zero and v1.150.0's leaves out (`omitzero`).
 */
function metadataWire(m: OperatingSystemConfig['metadata'], contract: GardenerVersion): Wire {
  const omitEmpty = ['labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields'];
  const creationTimestamp = m.creationTimestamp ?? (contract === 'v1.150.0' ? undefined : null);
  const out = compact({ ...m, creationTimestamp }, omitEmpty);
  for (const key of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion'])
    if (out[key] === '') delete out[key];
  if (out.generation === 0) delete out.generation;
  return out;
}

export function oscWire(osc: OperatingSystemConfig, contract: GardenerVersion = 'v1.91.4'): Wire {
  return {
    apiVersion: osc.apiVersion,
    kind: osc.kind,
    metadata: metadataWire(osc.metadata, contract),
    spec: specWire(osc.spec, contract),
    status: statusWire(osc.status, contract),
  };
}
