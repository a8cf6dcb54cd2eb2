import type { V1Secret } from '@kubernetes/client-node';
import { expect } from 'chai';
import { selectCaBundle } from '../../../seed/shoot-secrets/index.js';

const NS = 'shoot--dev--demo';
const CERT_A = '-----BEGIN CERTIFICATE-----\nQUFBQQ==\n-----END CERTIFICATE-----\n';
const CERT_B = '-----BEGIN CERTIFICATE-----\nQkJCQg==\n-----END CERTIFICATE-----\n';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

function bundleSecret(
  name: string,
  bundleFor: string,
  created: string | undefined,
  data: Record<string, string> | undefined,
  labels: Record<string, string> = {},
): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: NS,
      ...(created !== undefined && { creationTimestamp: new Date(created) }),
      labels: {
        'managed-by': 'secrets-manager',
        'manager-identity': 'gardenlet',
        'bundle-for': bundleFor,
        name: `${bundleFor}-bundle`,
        ...labels,
      },
    },
    type: 'Opaque',
    ...(data !== undefined && { data }),
  };
}

/** The CA itself (not a bundle): same manager labels, no bundle-for. */
const caSecret: V1Secret = {
  metadata: {
    name: 'ca-5a2b9d1e',
    namespace: NS,
    creationTimestamp: new Date('2024-05-02T00:00:00Z'),
    labels: { name: 'ca', 'managed-by': 'secrets-manager', 'manager-identity': 'gardenlet' },
  },
  data: { 'ca.crt': b64(CERT_B), 'bundle.crt': b64(CERT_B) },
};

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go,
// pkg/gardenlet/operation/botanist/operatingsystemconfig.go.
describe('shoot-secrets: CA bundle', () => {
  it('one bundle: its bundle.crt and name, not rotating', () => {
    const result = selectCaBundle(
      [bundleSecret('ca-bundle-3f4a1c2e', 'ca', '2024-05-01T10:00:00Z', { 'bundle.crt': b64(CERT_A) })],
      'ca',
    );
    expect(result).to.deep.equal({
      ok: true,
      bundle: CERT_A,
      secretName: 'ca-bundle-3f4a1c2e',
      rotating: false,
    });
  });

  it('two bundles mid-rotation: the newest wins, rotating=true, whatever the list order', () => {
    const old = bundleSecret('ca-bundle-3f4a1c2e', 'ca', '2024-05-01T10:00:00Z', {
      'bundle.crt': b64(CERT_A),
    });
    const both = CERT_A + CERT_B;
    const current = bundleSecret('ca-bundle-91d0e7aa', 'ca', '2024-06-01T10:00:00Z', {
      'bundle.crt': b64(both),
    });
    const expected = { ok: true, bundle: both, secretName: 'ca-bundle-91d0e7aa', rotating: true };
    expect(selectCaBundle([old, current], 'ca')).to.deep.equal(expected);
    expect(selectCaBundle([current, old], 'ca')).to.deep.equal(expected);
  });

  it('equal creationTimestamps: the name sorting first byte-wise wins, in any list order', () => {
    const t = '2024-05-01T10:00:00Z';
    const b = bundleSecret('ca-bundle-bbbbbbbb', 'ca', t, { 'bundle.crt': b64(CERT_B) });
    const a = bundleSecret('ca-bundle-aaaaaaaa', 'ca', t, { 'bundle.crt': b64(CERT_A) });
    const upper = bundleSecret('ca-bundle-Zzzzzzzz', 'ca', t, { 'bundle.crt': b64(CERT_B) });
    expect(selectCaBundle([b, a], 'ca')).to.deep.include({
      secretName: 'ca-bundle-aaaaaaaa',
      rotating: true,
    });
    expect(selectCaBundle([a, b], 'ca')).to.deep.include({
      secretName: 'ca-bundle-aaaaaaaa',
      bundle: CERT_A,
    });
    // byte-wise, not locale order: 'Z' (0x5a) sorts before 'a' (0x61)
    expect(selectCaBundle([a, upper, b], 'ca')).to.deep.include({ secretName: 'ca-bundle-Zzzzzzzz' });
  });

  it('a secret without creationTimestamp counts as oldest', () => {
    const undated = bundleSecret('ca-bundle-00000000', 'ca', undefined, { 'bundle.crt': b64(CERT_B) });
    const dated = bundleSecret('ca-bundle-ffffffff', 'ca', '2020-01-01T00:00:00Z', {
      'bundle.crt': b64(CERT_A),
    });
    expect(selectCaBundle([undated, dated], 'ca')).to.deep.include({ secretName: 'ca-bundle-ffffffff' });
  });

  it('accepts a timestamp that arrives as a string (raw JSON)', () => {
    const raw = bundleSecret('ca-bundle-11111111', 'ca', undefined, { 'bundle.crt': b64(CERT_B) });
    (raw.metadata as Record<string, unknown>).creationTimestamp = '2030-01-01T00:00:00Z';
    const dated = bundleSecret('ca-bundle-22222222', 'ca', '2024-01-01T00:00:00Z', {
      'bundle.crt': b64(CERT_A),
    });
    expect(selectCaBundle([dated, raw], 'ca')).to.deep.include({ secretName: 'ca-bundle-11111111' });
  });

  it('ca and ca-kubelet are told apart by bundle-for', () => {
    const secrets = [
      bundleSecret('ca-bundle-3f4a1c2e', 'ca', '2024-05-01T10:00:00Z', { 'bundle.crt': b64(CERT_A) }),
      bundleSecret('ca-kubelet-bundle-7c1e22b0', 'ca-kubelet', '2024-05-01T10:00:00Z', {
        'bundle.crt': b64(CERT_B),
      }),
    ];
    expect(selectCaBundle(secrets, 'ca')).to.deep.include({
      secretName: 'ca-bundle-3f4a1c2e',
      bundle: CERT_A,
    });
    expect(selectCaBundle(secrets, 'ca-kubelet')).to.deep.equal({
      ok: true,
      bundle: CERT_B,
      secretName: 'ca-kubelet-bundle-7c1e22b0',
      rotating: false,
    });
  });

  it('secrets with wrong labels are ignored, even when newer', () => {
    const good = bundleSecret('ca-bundle-3f4a1c2e', 'ca', '2024-05-01T10:00:00Z', {
      'bundle.crt': b64(CERT_A),
    });
    const otherManager = bundleSecret(
      'ca-bundle-99999999',
      'ca',
      '2025-01-01T00:00:00Z',
      { 'bundle.crt': b64(CERT_B) },
      { 'manager-identity': 'gardener-operator' },
    );
    const notManaged = bundleSecret(
      'ca-bundle-88888888',
      'ca',
      '2025-01-01T00:00:00Z',
      { 'bundle.crt': b64(CERT_B) },
      { 'managed-by': 'someone-else' },
    );
    expect(selectCaBundle([otherManager, caSecret, notManaged, good], 'ca')).to.deep.equal({
      ok: true,
      bundle: CERT_A,
      secretName: 'ca-bundle-3f4a1c2e',
      rotating: false,
    });
  });

  it('missing secret: a reason that names the selector', () => {
    expect(selectCaBundle([], 'ca')).to.deep.equal({
      ok: false,
      reason:
        'CA bundle for "ca" not found: no secret labelled bundle-for=ca,managed-by=secrets-manager,manager-identity=gardenlet',
    });
    expect(selectCaBundle([caSecret], 'ca-kubelet')).to.deep.include({ ok: false });
  });

  it('missing, empty or corrupt bundle.crt in the newest secret: a reason naming secret and key', () => {
    const t = '2024-05-01T10:00:00Z';
    expect(
      selectCaBundle([bundleSecret('ca-bundle-1', 'ca', t, { 'ca.crt': b64(CERT_A) })], 'ca'),
    ).to.deep.equal({
      ok: false,
      reason: `CA bundle for "ca": secret ${NS}/ca-bundle-1 has no data key bundle.crt`,
    });
    expect(selectCaBundle([bundleSecret('ca-bundle-1', 'ca', t, undefined)], 'ca')).to.deep.include({
      reason: `CA bundle for "ca": secret ${NS}/ca-bundle-1 has no data key bundle.crt`,
    });
    expect(selectCaBundle([bundleSecret('ca-bundle-1', 'ca', t, { 'bundle.crt': '' })], 'ca')).to.deep.equal({
      ok: false,
      reason: `CA bundle for "ca": secret ${NS}/ca-bundle-1: data key bundle.crt is empty`,
    });
    expect(
      selectCaBundle([bundleSecret('ca-bundle-1', 'ca', t, { 'bundle.crt': 'not base64!' })], 'ca'),
    ).to.deep.equal({
      ok: false,
      reason: `CA bundle for "ca": secret ${NS}/ca-bundle-1: data key bundle.crt is not valid base64`,
    });
    expect(
      selectCaBundle([bundleSecret('ca-bundle-1', 'ca', t, { 'bundle.crt': '//79' })], 'ca'),
    ).to.deep.equal({
      ok: false,
      reason: `CA bundle for "ca": secret ${NS}/ca-bundle-1: data key bundle.crt is not UTF-8 text`,
    });
  });

  it('a broken newest secret is an error, not a reason to use an older one', () => {
    const old = bundleSecret('ca-bundle-old', 'ca', '2024-05-01T10:00:00Z', { 'bundle.crt': b64(CERT_A) });
    const broken = bundleSecret('ca-bundle-new', 'ca', '2024-06-01T10:00:00Z', {});
    expect(selectCaBundle([old, broken], 'ca')).to.deep.equal({
      ok: false,
      reason: `CA bundle for "ca": secret ${NS}/ca-bundle-new has no data key bundle.crt`,
    });
  });
});
