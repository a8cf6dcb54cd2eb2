/**
 * OperatingSystemConfig (extensions.gardener.cloud/v1alpha1), the fields of Gardener v1.91 plus
 * the status fields the legacy executor reads. Field optionality mirrors Go's `omitempty`:
 * `purpose`, `type`, a file's `content` and an inline's `encoding`/`data` are always written.
 */
import * as z from 'zod';
import { HostPath, UnitFileName } from './host-path.js';
import { objectMetaSchema } from './object-meta.js';
import { objectOf, rawObject, type Strictness } from './strictness.js';

export const OSC_API_VERSION = 'extensions.gardener.cloud/v1alpha1';
export const OSC_KIND = 'OperatingSystemConfig';
export const OSC_PURPOSES = ['provision', 'reconcile'] as const;
export const UNIT_COMMANDS = ['start', 'restart', 'stop'] as const;
export const FILE_ENCODINGS = ['', 'b64'] as const;

export function oscSchemas(mode: Strictness) {
  const o = <S extends z.ZodRawShape>(shape: S) => objectOf(mode, shape);

  const DropIn = o({
    name: UnitFileName.describe('file name of the drop-in in /etc/systemd/system/<unit>.d'),
    content: z.string(),
  });

  const Unit = o({
    name: UnitFileName.describe('systemd unit name, e.g. kubelet.service'),
    command: z.enum(UNIT_COMMANDS).optional(),
    enable: z.boolean().optional(),
    content: z.string().optional(),
    dropIns: z.array(DropIn).optional(),
    filePaths: z.array(z.string()).optional().describe('files whose change restarts this unit'),
  });

  const FileContentInline = o({
    encoding: z.enum(FILE_ENCODINGS, {
      error: (issue) => `invalid file codec id ${JSON.stringify(issue.input)}`,
    }),
    data: z.string(),
  });

  const FileContent = o({
    secretRef: o({ name: z.string(), dataKey: z.string() }).optional(),
    inline: FileContentInline.optional(),
    transmitUnencoded: z.boolean().optional(),
    imageRef: o({ image: z.string(), filePathInImage: z.string() }).optional(),
  });

  const File = o({
    path: HostPath,
    permissions: z.number().int().min(0).max(0o7777).optional().describe('file mode as a decimal number'),
    content: FileContent,
  });

  const LastOperation = o({
    description: z.string(),
    lastUpdateTime: z.string(),
    progress: z.number().int(),
    state: z.string(),
    type: z.string(),
  });

  const LastError = o({
    description: z.string(),
    taskID: z.string().optional(),
    codes: z.array(z.string()).optional(),
    lastUpdateTime: z.string().optional(),
  });

  const Spec = o({
    criConfig: o({ name: z.string() }).optional(),
    type: z.string(),
    providerConfig: rawObject('passed to the OS extension unchanged').optional(),
    purpose: z.enum(OSC_PURPOSES),
    reloadConfigFilePath: z.string().optional(),
    units: z.array(Unit).optional(),
    files: z.array(File).optional(),
  });

  const Status = o({
    providerStatus: rawObject().optional(),
    conditions: z.array(rawObject()).optional(),
    lastError: LastError.optional(),
    lastOperation: LastOperation.optional(),
    observedGeneration: z.number().int().optional(),
    state: rawObject().optional(),
    resources: z.array(rawObject()).optional(),
    extensionUnits: z.array(Unit).optional(),
    extensionFiles: z.array(File).optional(),
    cloudConfig: o({ secretRef: o({ name: z.string(), namespace: z.string().optional() }) }).optional(),
    command: z.string().optional(),
    units: z.array(z.string()).optional(),
    files: z.array(z.string()).optional(),
  });

  const OperatingSystemConfig = o({
    apiVersion: z.literal(OSC_API_VERSION),
    kind: z.literal(OSC_KIND),
    metadata: objectMetaSchema(mode),
    spec: Spec,
    status: Status.optional(),
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
export type OscFileContent = z.output<typeof StrictOsc.FileContent>;
export type OscPurpose = (typeof OSC_PURPOSES)[number];
export type UnitCommand = (typeof UNIT_COMMANDS)[number];
