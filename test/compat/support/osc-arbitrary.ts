/**
 * Generated osc.yaml documents for check 4: every field either present, left out, `null` or empty,
 * so that what Go reads as a zero value is exercised everywhere. Values stay inside what
 * docs/compatibility.md allows us to refuse (paths, unit names, encodings, modes: ids 3-6).
 */
import fc from 'fast-check';

type Json = Record<string, unknown>;

/** A field: its value, left out (undefined), or null; `empty` adds the type's empty value. */
function field<T>(value: fc.Arbitrary<T>, empty?: T): fc.Arbitrary<T | null | undefined> {
  const choices: fc.Arbitrary<T | null | undefined>[] = [value, fc.constant(undefined), fc.constant(null)];
  if (empty !== undefined) choices.push(fc.constant(empty));
  return fc.oneof(...choices);
}

/** An object without its undefined members (a field left out). */
const object = (shape: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .record(shape)
    .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Json);

const text = fc.oneof(
  fc.constantFrom('', 'x', '[Service]\nExecStart=/bin/true\n', 'a: b', '0644', 'true', 'café'),
  fc.string({ maxLength: 12 }),
);
const path = fc.constantFrom(
  '/etc/a',
  '/etc/b.conf',
  '/opt/bin/c',
  '/var/lib/d/e.yaml',
  '/etc/systemd/system/x.service.d/10.conf',
);
const unitName = fc.constantFrom('a.service', 'b.timer', 'c.mount', 'kubelet.service');

const dropIn = object({ name: fc.constantFrom('10-a.conf', '20-b.conf'), content: field(text, '') });

const unit = object({
  name: unitName,
  command: field(fc.constantFrom('start', 'restart', 'stop', 'reload'), ''),
  enable: field(fc.boolean()),
  content: field(text, ''),
  dropIns: field(fc.array(dropIn, { maxLength: 2 }), []),
  filePaths: field(fc.array(path, { maxLength: 2 }), []),
});

const content = object({
  inline: field(object({ encoding: field(fc.constantFrom('', 'b64'), ''), data: field(text, '') }), {}),
  secretRef: field(object({ name: field(text), dataKey: field(text) }), {}),
  imageRef: field(
    object({
      image: field(fc.constantFrom('repo/img:v1', '')),
      filePathInImage: field(fc.constantFrom('/bin/x', '')),
    }),
    {},
  ),
  transmitUnencoded: field(fc.boolean()),
});

const file = object({
  path,
  permissions: field(fc.oneof(fc.integer({ min: 0, max: 0o777 }), fc.constantFrom(744, 0o4755, 0o7777))),
  content: field(content, {}),
});

const metadata = object({
  name: field(fc.constantFrom('osc', 'gardener-node-agent-pool-77ac3-gl-original')),
  namespace: field(fc.constantFrom('shoot--p--s'), ''),
  labels: field(fc.dictionary(fc.constantFrom('a', 'worker.gardener.cloud/pool'), text, { maxKeys: 2 }), {}),
  annotations: field(fc.dictionary(fc.constantFrom('b', 'checksum/x'), text, { maxKeys: 2 }), {}),
});

const spec = object({
  type: field(fc.constantFrom('gardenlinux', 'ubuntu'), ''),
  purpose: field(fc.constantFrom('provision', 'reconcile', 'other'), ''),
  criConfig: field(object({ name: field(fc.constantFrom('containerd', '')) }), {}),
  providerConfig: field(fc.constantFrom({ apiVersion: 'x/v1', kind: 'Config' }, {}), {}),
  reloadConfigFilePath: field(fc.constantFrom('/var/lib/x/cloud_config'), ''),
  units: field(fc.array(unit, { maxLength: 3 }), []),
  files: field(fc.array(file, { maxLength: 3 }), []),
});

const status = object({
  extensionUnits: field(fc.array(unit, { maxLength: 2 }), []),
  extensionFiles: field(fc.array(file, { maxLength: 2 }), []),
  command: field(fc.constantFrom('/usr/bin/env bash /x'), ''),
  units: field(fc.array(unitName, { maxLength: 2 }), []),
  files: field(fc.array(path, { maxLength: 2 }), []),
});

/** A document as someone might write it: JSON-shaped, with fields left out, null or empty. */
export const oscDocument: fc.Arbitrary<Json> = object({
  apiVersion: fc.constant('extensions.gardener.cloud/v1alpha1'),
  kind: fc.constant('OperatingSystemConfig'),
  metadata: field(metadata, {}),
  spec: field(spec, {}),
  status: field(status, {}),
});

/** A v1.150.0 file: a v1.91.4 one, perhaps only for one node's hostname. */
const fileV150 = object({
  path,
  permissions: field(fc.oneof(fc.integer({ min: 0, max: 0o777 }), fc.constantFrom(744, 0o4755, 0o7777))),
  content: field(content, {}),
  hostName: field(fc.constantFrom('node-a', 'Node-B.example'), ''),
});

const registryHost = object({
  url: field(fc.constantFrom('https://mirror.local', 'http://10.0.0.1:5000'), ''),
  capabilities: field(fc.array(fc.constantFrom('pull', 'resolve', 'push'), { maxLength: 2 }), []),
  caCerts: field(fc.array(fc.constantFrom('/etc/ca.pem'), { maxLength: 1 }), []),
  overridePath: field(fc.boolean()),
});

const containerd = object({
  registries: field(
    fc.array(
      object({
        upstream: field(fc.constantFrom('docker.io', '_default'), ''),
        server: field(fc.constantFrom('https://registry-1.docker.io'), ''),
        hosts: field(fc.array(registryHost, { maxLength: 2 }), []),
        readinessProbe: field(fc.boolean()),
      }),
      { maxLength: 2 },
    ),
    [],
  ),
  sandboxImage: field(fc.constantFrom('registry.k8s.io/pause:3.10'), ''),
  plugins: field(
    fc.array(
      object({
        op: field(fc.constantFrom('add', 'remove'), ''),
        path: field(
          fc.array(fc.constantFrom('io.containerd.grpc.v1.cri', 'containerd'), { maxLength: 2 }),
          [],
        ),
        values: field(fc.constantFrom({ enable_cdi: true }, {}), {}),
      }),
      { maxLength: 2 },
    ),
    [],
  ),
});

const lastInitiation = object({ lastInitiationTime: field(fc.constantFrom('2026-01-01T00:00:00Z')) });

const specV150 = object({
  type: field(fc.constantFrom('gardenlinux', 'ubuntu'), ''),
  class: field(fc.constantFrom('shoot', 'seed')),
  purpose: field(fc.constantFrom('provision', 'reconcile', 'other'), ''),
  criConfig: field(
    object({
      name: field(fc.constantFrom('containerd', '')),
      cgroupDriver: field(fc.constantFrom('systemd', 'cgroupfs'), ''),
      containerd: field(containerd, {}),
    }),
    {},
  ),
  providerConfig: field(fc.constantFrom({ apiVersion: 'x/v1', kind: 'Config' }, {}), {}),
  reloadConfigFilePath: field(fc.constantFrom('/var/lib/x/cloud_config'), ''),
  units: field(fc.array(unit, { maxLength: 3 }), []),
  files: field(fc.array(fileV150, { maxLength: 3 }), []),
  inPlaceUpdates: field(
    object({
      operatingSystemVersion: field(fc.constantFrom('1877.0.0'), ''),
      kubelet: field(fc.constantFrom('1.34.1'), ''),
      credentialsRotation: field(
        object({
          certificateAuthorities: field(lastInitiation, {}),
          serviceAccountKey: field(lastInitiation, {}),
        }),
        {},
      ),
    }),
    {},
  ),
});

const statusV150 = object({
  extensionUnits: field(fc.array(unit, { maxLength: 2 }), []),
  extensionFiles: field(fc.array(fileV150, { maxLength: 2 }), []),
  command: field(fc.constantFrom('/usr/bin/env bash /x'), ''),
  inPlaceUpdates: field(
    object({
      osUpdate: field(
        object({
          command: field(fc.constantFrom('/opt/bin/update', ''), ''),
          args: field(fc.array(fc.constantFrom('--now', '-y'), { maxLength: 2 }), []),
        }),
        {},
      ),
    }),
    {},
  ),
});

/** A document of the v1.150.0 contract, with v1.91.4's fields sometimes left in (v1.150 drops them). */
export const oscDocumentV150: fc.Arbitrary<Json> = object({
  apiVersion: fc.constant('extensions.gardener.cloud/v1alpha1'),
  kind: fc.constant('OperatingSystemConfig'),
  metadata: field(metadata, {}),
  spec: field(specV150, {}),
  status: field(statusV150, {}),
});
