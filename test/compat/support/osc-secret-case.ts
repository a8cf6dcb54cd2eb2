/**
 * gardenlet's OperatingSystemConfigSecret (through the oracle) and ours, for the same OSC and seed
 * secrets: the S-TV-9 vector of upstream's own test, a missing secret, a missing data key, bytes
 * that are not UTF-8, volatile annotations and an OS extension's secret references.
 */
import type { OperatingSystemConfig } from '../../../api/index.js';
import { oscSecret } from '../../../charts/managed-resource/osc-secret.js';
import type { Differences } from './difference.js';
import type { Oracle } from './oracle.js';

export interface OscSecretCase {
  readonly name: string;
  readonly osc: OperatingSystemConfig;
  /** Seed secrets in the OSC's namespace: name -> key -> bytes. */
  readonly secrets: Readonly<Record<string, Readonly<Record<string, Uint8Array>>>>;
}

const SECRET_NAME = 'secret-name';
const POOL = 'worker-pool-name';

/** S-TV-9: upstream's fixture (pkg/component/.../nodeagent/secrets_test.go). */
export function stv9(): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: {
      name: 'osc-name',
      namespace: 'namespace',
      resourceVersion: '1',
      uid: 'foo',
      labels: { foo: 'bar' },
      annotations: { bar: 'foo' },
    },
    spec: {
      purpose: '',
      type: '',
      units: [{ name: 'some-unit.service' }],
      files: [{ path: '/some/path', content: { secretRef: { name: 'file-secret', dataKey: 'foo' } } }],
    },
    status: { extensionUnits: [{ name: 'some-other-unit.service' }] },
  };
}

const FILE_SECRET = { 'file-secret': { foo: Buffer.from('bar') } };

export function oscSecretCases(): OscSecretCase[] {
  const missingSecret = stv9();
  missingSecret.spec.files!.push({
    path: '/non/existing/path',
    content: { secretRef: { name: 'non-existing', dataKey: 'foo' } },
  });
  const missingKey = stv9();
  missingKey.spec.files![0]!.content = { secretRef: { name: 'file-secret', dataKey: 'other' } };
  const volatile = stv9();
  volatile.metadata.annotations = {
    bar: 'foo',
    'gardener.cloud/operation': 'reconcile',
    'gardener.cloud/timestamp': '2024-06-01T12:00:00Z',
  };
  const extension = stv9();
  extension.status = {
    extensionFiles: [{ path: '/ext', content: { secretRef: { name: 'file-secret', dataKey: 'foo' } } }],
  };
  return [
    { name: 'S-TV-9', osc: stv9(), secrets: FILE_SECRET },
    { name: 'S-TV-9, a secret that does not exist', osc: missingSecret, secrets: FILE_SECRET },
    { name: 'a data key the secret lacks', osc: missingKey, secrets: FILE_SECRET },
    {
      name: 'secret bytes that are not UTF-8',
      osc: stv9(),
      secrets: { 'file-secret': { foo: Uint8Array.from([0x63, 0x61, 0x66, 0xe9]) } },
    },
    { name: 'volatile annotations', osc: volatile, secrets: FILE_SECRET },
    { name: "an OS extension's file with a secret reference", osc: extension, secrets: FILE_SECRET },
  ];
}

type Outcome = { result: string; osc?: string; checksum?: string };

function ours(c: OscSecretCase): Outcome {
  try {
    const s = oscSecret(c.osc, SECRET_NAME, POOL, (name) => c.secrets[name]);
    return {
      result: 'written',
      osc: Buffer.from(s.data['osc.yaml']!, 'base64').toString(),
      checksum: s.metadata.annotations['checksum/data-script'],
    };
  } catch (e) {
    return { result: `error: ${(e as Error).message}` };
  }
}

export async function compareOscSecret(oracle: Oracle, d: Differences, c: OscSecretCase): Promise<void> {
  const theirs = await oracle.ask<{
    secret?: { data: Record<string, string>; metadata: { annotations: Record<string, string> } };
    error?: string;
  }>('oscSecret', {
    osc: c.osc,
    secrets: Object.entries(c.secrets).map(([name, data]) => ({
      name,
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    })),
    secretName: SECRET_NAME,
    pool: POOL,
  });
  const upstream: Outcome = theirs.secret
    ? {
        result: 'written',
        osc: Buffer.from(theirs.secret.data['osc.yaml']!, 'base64').toString(),
        checksum: theirs.secret.metadata.annotations['checksum/data-script'],
      }
    : { result: `error: ${theirs.error}` };
  const mine = ours(c);
  d.compare(c.name, '', 'result', mine.result, upstream.result);
  if (mine.osc === undefined || upstream.osc === undefined) return;
  d.compare(c.name, '', 'osc.yaml', mine.osc, upstream.osc);
  if (mine.osc === upstream.osc)
    d.compare(c.name, '', 'checksum/data-script', mine.checksum, upstream.checksum);
}
