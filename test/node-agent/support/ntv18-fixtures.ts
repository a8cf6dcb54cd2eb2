/** The fixtures of N-TV-18 (used by N-TV-19..21, N-TV-31; docs/test-vectors.md), literally. */
import type { OperatingSystemConfig, OscFile, OscUnit } from '../../../api/index.js';
import { stringifyYaml } from '../../../api/index.js';

const inline = (path: string, data: string, permissions?: number, encoding: '' | 'b64' = ''): OscFile => ({
  path,
  ...(permissions === undefined ? {} : { permissions }),
  content: { inline: { encoding, data } },
});

export const FILE = {
  file1: inline('/example/file', 'file1', 0o777),
  file2: inline('/another/file', 'ZmlsZTI=', undefined, 'b64'),
  file3: {
    path: '/third/file',
    permissions: 0o750,
    content: { imageRef: { image: 'foo-image', filePathInImage: '/foo-file' } },
  } as OscFile,
  file4: inline('/unchanged/file', 'file4', 0o750),
  file5: inline('/changed/file', 'file5', 0o750),
  file6: inline('/sixth/file', 'file6', 0o750),
  file7: inline('/seventh/file', 'file7', 0o750),
};

/** The content of `/foo-file` in image `foo-image`. */
export const IMAGE_FILES = { 'foo-image': { '/foo-file': 'file3' } };

export const UNIT: Record<string, OscUnit> = {
  gna: { name: 'gardener-node-agent.service', enable: false, content: '#gna' },
  unit1: {
    name: 'unit1',
    enable: true,
    command: 'start',
    content: '#unit1',
    dropIns: [{ name: 'drop', content: '#unit1drop' }],
  },
  unit2: { name: 'unit2', enable: false, command: 'stop', content: '#unit2' },
  unit3: {
    name: 'unit3',
    dropIns: [{ name: 'drop', content: '#unit3drop' }],
    filePaths: ['/unchanged/file'],
  },
  unit4: {
    name: 'unit4',
    enable: true,
    command: 'start',
    content: '#unit4',
    dropIns: [{ name: 'drop', content: '#unit4drop' }],
  },
  unit5: {
    name: 'unit5',
    enable: true,
    command: 'start',
    content: '#unit5',
    dropIns: [
      { name: 'drop1', content: '#unit5drop1' },
      { name: 'drop2', content: '#unit5drop2' },
    ],
  },
  unit5b: { name: 'unit5', dropIns: [{ name: 'extensionsdrop', content: '#unit5extensionsdrop' }] },
  unit6: { name: 'unit6', enable: true, content: '#unit6', filePaths: ['/third/file'] },
  unit7: { name: 'unit7', enable: true, content: '#unit7', filePaths: ['/changed/file'] },
  unit8: { name: 'unit8', enable: true, command: 'start', content: '#unit8', filePaths: ['/sixth/file'] },
  unit9: { name: 'unit9', dropIns: [{ name: 'drop', content: '#unit9drop' }], filePaths: ['/seventh/file'] },
};

function osc(
  spec: { files: OscFile[]; units: OscUnit[] },
  status: { files: OscFile[]; units: OscUnit[] },
): OperatingSystemConfig {
  // A fresh deep copy each time: tests mutate what they get.
  return structuredClone({
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: 'osc', namespace: 'shoot--foo--bar' },
    spec: { type: 'type', purpose: 'reconcile', files: spec.files, units: spec.units },
    status: { extensionFiles: status.files, extensionUnits: status.units },
  }) as OperatingSystemConfig;
}

const { unit1, unit2, unit3, unit4, unit5, unit5b, unit6, unit7, unit8, unit9, gna } = UNIT as Required<
  Record<keyof typeof UNIT, OscUnit>
>;

export function oscV1(): OperatingSystemConfig {
  return osc(
    { files: [FILE.file1, FILE.file3, FILE.file5], units: [unit1!, unit2!, unit5!, unit5b!, unit6!, unit7!] },
    { files: [FILE.file2, FILE.file4, FILE.file6, FILE.file7], units: [unit3!, unit4!, unit8!, unit9!] },
  );
}

/** N-TV-20's OSC v2. */
export function oscV2(): OperatingSystemConfig {
  const unit2b: OscUnit = {
    ...unit2!,
    enable: true,
    command: 'start',
    dropIns: [{ name: 'dropdropdrop', content: '#unit2drop' }],
  };
  const unit4b: OscUnit = { ...unit4!, enable: false, dropIns: undefined };
  const unit5c: OscUnit = { ...unit5!, dropIns: [unit5!.dropIns![1]!] };
  const unit6b: OscUnit = { ...unit6!, filePaths: undefined };
  return osc(
    {
      files: [FILE.file1, FILE.file3, inline('/changed/file', 'changeme', 0o750)],
      units: [unit2b, unit5c, unit6b, unit7!],
    },
    {
      files: [
        FILE.file4,
        inline('/sixth/file', 'changed', 0o750),
        inline('/seventh/file', 'changed-as-well', 0o750),
      ],
      units: [unit3!, unit4b, unit8!, unit9!],
    },
  );
}

/** N-TV-21: v1 with the node agent's own unit appended to spec.units. */
export function oscV1WithNodeAgent(): OperatingSystemConfig {
  const v1 = oscV1();
  return { ...v1, spec: { ...v1.spec, units: [...(v1.spec.units ?? []), gna!] } };
}

/** The osc.yaml bytes of an OSC, as gardenlet writes them. */
export function yamlOf(value: OperatingSystemConfig): string {
  return stringifyYaml(value);
}
