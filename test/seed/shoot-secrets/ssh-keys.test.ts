import type { V1Secret } from '@kubernetes/client-node';
import { expect } from 'chai';
import { selectSshPublicKeys } from '../../../seed/shoot-secrets/index.js';

const NS = 'shoot--dev--demo';
const KEY_1 = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC1 gardener\n';
const KEY_2 = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC2 gardener\n';
const KEY_3 = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC3 gardener\n';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

function keypair(
  name: string,
  created: string,
  publicKey: string | undefined,
  labels: Record<string, string> = {},
): V1Secret {
  return {
    metadata: {
      name,
      namespace: NS,
      creationTimestamp: new Date(created),
      labels: {
        name: 'ssh-keypair',
        'managed-by': 'secrets-manager',
        'manager-identity': 'gardenlet',
        persist: 'true',
        ...labels,
      },
    },
    type: 'Opaque',
    data: {
      id_rsa: b64('-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----\n'),
      ...(publicKey !== undefined && { 'id_rsa.pub': b64(publicKey) }),
    },
  };
}

const k1 = keypair('ssh-keypair-1a2b3c4d', '2024-01-01T00:00:00Z', KEY_1);
const k2 = keypair('ssh-keypair-5e6f7a8b', '2024-03-01T00:00:00Z', KEY_2);
const k3 = keypair('ssh-keypair-9c0d1e2f', '2024-06-01T00:00:00Z', KEY_3);

// Upstream: gardener v1.91.4 pkg/gardenlet/operation/botanist/operatingsystemconfig.go.
describe('shoot-secrets: SSH public keys', () => {
  it('none: ok=false with a reason (the caller decides whether SSH access needs it)', () => {
    expect(selectSshPublicKeys([])).to.deep.equal({
      ok: false,
      reason:
        'SSH keypair not found: no secret labelled managed-by=secrets-manager,manager-identity=gardenlet,name=ssh-keypair',
    });
  });

  it('one: [current]', () => {
    expect(selectSshPublicKeys([k1])).to.deep.equal({
      ok: true,
      keys: [KEY_1],
      secretNames: ['ssh-keypair-1a2b3c4d'],
    });
  });

  it('two (after a rotation): [current, old], newest first, whatever the list order', () => {
    const expected = {
      ok: true,
      keys: [KEY_2, KEY_1],
      secretNames: ['ssh-keypair-5e6f7a8b', 'ssh-keypair-1a2b3c4d'],
    };
    expect(selectSshPublicKeys([k1, k2])).to.deep.equal(expected);
    expect(selectSshPublicKeys([k2, k1])).to.deep.equal(expected);
  });

  it('three: the newest two only', () => {
    expect(selectSshPublicKeys([k2, k3, k1])).to.deep.equal({
      ok: true,
      keys: [KEY_3, KEY_2],
      secretNames: ['ssh-keypair-9c0d1e2f', 'ssh-keypair-5e6f7a8b'],
    });
  });

  it('equal creationTimestamps: the name sorting first is current', () => {
    const a = keypair('ssh-keypair-aaaa', '2024-01-01T00:00:00Z', KEY_1);
    const b = keypair('ssh-keypair-bbbb', '2024-01-01T00:00:00Z', KEY_2);
    expect(selectSshPublicKeys([b, a])).to.deep.include({ keys: [KEY_1, KEY_2] });
  });

  it('ignores secrets with other labels (other manager, other name, no labels)', () => {
    const otherManager = keypair('ssh-keypair-ffff', '2025-01-01T00:00:00Z', KEY_3, {
      'manager-identity': 'gardener-operator',
    });
    const otherName = keypair('ssh-keypair-eeee', '2025-01-01T00:00:00Z', KEY_3, { name: 'ssh-keypair-old' });
    const unlabelled: V1Secret = {
      metadata: { name: 'ssh-keypair', namespace: NS, creationTimestamp: new Date('2025-01-01T00:00:00Z') },
      data: { 'id_rsa.pub': b64(KEY_3) },
    };
    expect(selectSshPublicKeys([otherManager, k1, otherName, unlabelled])).to.deep.equal({
      ok: true,
      keys: [KEY_1],
      secretNames: ['ssh-keypair-1a2b3c4d'],
    });
  });

  it('a current or old keypair without id_rsa.pub: a reason naming which and the secret', () => {
    const broken = keypair('ssh-keypair-broken', '2025-01-01T00:00:00Z', undefined);
    expect(selectSshPublicKeys([k1, broken])).to.deep.equal({
      ok: false,
      reason: `current SSH keypair: secret ${NS}/ssh-keypair-broken has no data key id_rsa.pub`,
    });
    const brokenOld = keypair('ssh-keypair-broken', '2020-01-01T00:00:00Z', '');
    expect(selectSshPublicKeys([k1, brokenOld])).to.deep.equal({
      ok: false,
      reason: `old SSH keypair: secret ${NS}/ssh-keypair-broken: data key id_rsa.pub is empty`,
    });
  });
});
