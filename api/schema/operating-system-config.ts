/**
 * OperatingSystemConfig (extensions.gardener.cloud/v1alpha1): the fields of both contracts, Gardener
 * v1.91.4 (with the status fields the legacy executor reads) and v1.150.0 (the class, containerd's
 * configuration and cgroup driver in `criConfig`, a file's `hostName`, `inPlaceUpdates`; gardener
 * v1.150.0 pkg/apis/extensions/v1alpha1/types_operatingsystemconfig.go), so that one CRD and one
 * decoder serve a seed and a node of either contract. What each contract writes is checked by its
 * own oracle (test/compat). Field optionality mirrors Go's `omitempty`:
 * `purpose`, `type`, a file's `content` and an inline's `encoding`/`data` are always written
 * (api/objects/osc-wire.ts writes them as Go does). Read tolerantly, a missing or null field is
 * Go's zero value: an inline file without `encoding` is plain text, as for upstream's agent.
 */
import * as z from 'zod';
import { HostPath, UnitFileName } from './host-path.js';
import { objectMetaSchema } from './object-meta.js';
import { goOptional, goValue, objectOf, rawObject, type Strictness } from './strictness.js';

export const OSC_API_VERSION = 'extensions.gardener.cloud/v1alpha1';
export const OSC_KIND = 'OperatingSystemConfig';
export const OSC_PURPOSES = ['provision', 'reconcile'] as const;
export const UNIT_COMMANDS = ['start', 'restart', 'stop'] as const;
export const FILE_ENCODINGS = ['', 'b64'] as const;
export type OscPurpose = (typeof OSC_PURPOSES)[number];
export type UnitCommand = (typeof UNIT_COMMANDS)[number];

export function oscSchemas(mode: Strictness) {
  const o = <S extends z.ZodRawShape>(shape: S) => objectOf(mode, shape);
  // Tolerant in, as Go's decoder: a missing or null field is its zero value (or nil).
  const zero = <S extends z.ZodType>(schema: S, value: unknown) => goValue(mode, schema, value);
  const opt = <S extends z.ZodType>(schema: S) => goOptional(mode, schema);

  const DropIn = o({
    name: zero(UnitFileName.describe('file name of the drop-in in /etc/systemd/system/<unit>.d'), ''),
    content: zero(z.string(), ''),
  });

  // Go's UnitCommand is a string: upstream's agent stops on `stop` and restarts on anything else.
  const command: z.ZodType<UnitCommand | (string & {})> =
    mode === 'strict' ? z.enum(UNIT_COMMANDS) : z.string();
  const Unit = o({
    name: zero(UnitFileName.describe('systemd unit name, e.g. kubelet.service'), ''),
    command: opt(command),
    enable: opt(z.boolean()),
    content: opt(z.string()),
    dropIns: opt(z.array(DropIn)),
    filePaths: opt(z.array(z.string()).describe('files whose change restarts this unit')),
  });

  const FileContentInline = o({
    encoding: zero(
      z.enum(FILE_ENCODINGS, {
        error: (issue) => `invalid file codec id ${JSON.stringify(issue.input)}`,
      }),
      '',
    ),
    data: zero(z.string(), ''),
  });

  const FileContent = o({
    secretRef: opt(o({ name: zero(z.string(), ''), dataKey: zero(z.string(), '') })),
    inline: opt(FileContentInline),
    transmitUnencoded: opt(z.boolean()),
    imageRef: opt(o({ image: zero(z.string(), ''), filePathInImage: zero(z.string(), '') })),
  });

  const File = o({
    path: zero(HostPath, ''),
    permissions: opt(z.number().int().min(0).max(0o7777).describe('file mode as a decimal number')),
    content: zero(FileContent, {}),
    hostName: opt(z.string().describe('v1.150.0: only the node of this hostname writes the file')),
  });

  const RegistryHost = o({
    url: zero(z.string(), ''),
    capabilities: opt(z.array(z.string())),
    caCerts: opt(z.array(z.string())),
    overridePath: opt(z.boolean()),
  });

  const ContainerdConfig = o({
    registries: opt(
      z.array(
        o({
          upstream: zero(z.string(), ''),
          server: opt(z.string()),
          hosts: opt(z.array(RegistryHost)),
          readinessProbe: opt(z.boolean()),
        }),
      ),
    ),
    sandboxImage: zero(z.string(), ''),
    plugins: opt(
      z.array(
        o({
          op: opt(z.string()),
          path: opt(z.array(z.string())),
          values: opt(rawObject('merged into the plugin configuration of config.toml')),
        }),
      ),
    ),
  });

  const CriConfig = o({
    name: zero(z.string(), ''),
    cgroupDriver: opt(z.string().describe('v1.150.0: systemd or cgroupfs')),
    containerd: opt(ContainerdConfig),
  });

  const lastInitiation = o({ lastInitiationTime: opt(z.string()) });
  const InPlaceUpdates = o({
    operatingSystemVersion: zero(z.string(), ''),
    kubelet: zero(z.string(), ''),
    credentialsRotation: opt(
      o({ certificateAuthorities: opt(lastInitiation), serviceAccountKey: opt(lastInitiation) }),
    ),
  });
  const InPlaceUpdatesStatus = o({
    osUpdate: opt(o({ command: zero(z.string(), ''), args: opt(z.array(z.string())) })),
  });

  const LastOperation = o({
    description: zero(z.string(), ''),
    lastUpdateTime: zero(z.string(), ''),
    progress: zero(z.number().int(), 0),
    state: zero(z.string(), ''),
    type: zero(z.string(), ''),
  });

  const LastError = o({
    description: zero(z.string(), ''),
    taskID: opt(z.string()),
    codes: opt(z.array(z.string())),
    lastUpdateTime: opt(z.string()),
  });

  // Go's purpose is a string: validation (strict, what we write) allows the two purposes only.
  const purpose: z.ZodType<OscPurpose | (string & {})> =
    mode === 'strict' ? z.enum(OSC_PURPOSES) : z.string();
  const Spec = o({
    criConfig: opt(CriConfig),
    type: zero(z.string(), ''),
    class: opt(z.string()),
    providerConfig: opt(rawObject('passed to the OS extension unchanged')),
    purpose: zero(purpose, ''),
    reloadConfigFilePath: opt(z.string()),
    units: opt(z.array(Unit)),
    files: opt(z.array(File)),
    inPlaceUpdates: opt(InPlaceUpdates),
  });

  const Status = o({
    providerStatus: opt(rawObject()),
    conditions: opt(z.array(rawObject())),
    lastError: opt(LastError),
    lastOperation: opt(LastOperation),
    observedGeneration: opt(z.number().int()),
    state: opt(rawObject()),
    resources: opt(z.array(rawObject())),
    extensionUnits: opt(z.array(Unit)),
    extensionFiles: opt(z.array(File)),
    cloudConfig: opt(
      o({ secretRef: zero(o({ name: zero(z.string(), ''), namespace: opt(z.string()) }), {}) }),
    ),
    command: opt(z.string()),
    units: opt(z.array(z.string())),
    files: opt(z.array(z.string())),
    inPlaceUpdates: opt(InPlaceUpdatesStatus),
  });

  const OperatingSystemConfig = o({
    apiVersion: z.literal(OSC_API_VERSION),
    kind: z.literal(OSC_KIND),
    metadata: zero(objectMetaSchema(mode), {}),
    spec: zero(Spec, {}),
    status: opt(Status),
  });

  return { DropIn, Unit, File, FileContent, FileContentInline, Spec, Status, OperatingSystemConfig };
}

export const StrictOsc = oscSchemas('strict');
export const TolerantOsc = oscSchemas('tolerant');

export type OperatingSystemConfig = z.output<typeof StrictOsc.OperatingSystemConfig>;
export type OscSpec = z.output<typeof StrictOsc.Spec>;
export type OscStatus = z.output<typeof StrictOsc.Status>;
export type OscUnit = z.output<typeof StrictOsc.Unit>;
export type OscDropIn = z.output<typeof StrictOsc.DropIn>;
export type OscFile = z.output<typeof StrictOsc.File>;
