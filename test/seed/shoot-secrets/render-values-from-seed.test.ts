import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Secret } from '@kubernetes/client-node';
import { expect } from 'chai';
import { decodeCluster, parseYaml } from '../../../api/index.js';
import { RenderValuesSchema } from '../../../charts/values/render-values.js';
import { shootValues } from '../../../charts/values/worker-pool-context.js';
import { renderValuesFromSeed } from '../../../seed/shoot-secrets/index.js';

const NS = 'shoot--dev--demo';
const CLUSTER_CA = '-----BEGIN CERTIFICATE-----\nY2x1c3Rlcg==\n-----END CERTIFICATE-----\n';
const NEW_CLUSTER_CA = '-----BEGIN CERTIFICATE-----\nbmV3LWNsdXN0ZXI=\n-----END CERTIFICATE-----\n';
const KUBELET_CA = '-----BEGIN CERTIFICATE-----\na3ViZWxldA==\n-----END CERTIFICATE-----\n';
const SSH_CURRENT = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCcurrent gardener\n';
const SSH_OLD = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCold gardener\n';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const MANAGED = { 'managed-by': 'secrets-manager', 'manager-identity': 'gardenlet' };

function secret(
  name: string,
  created: string,
  labels: Record<string, string>,
  data: Record<string, string>,
): V1Secret {
  return {
    metadata: {
      name,
      namespace: NS,
      creationTimestamp: new Date(created),
      labels: { ...MANAGED, ...labels },
    },
    data,
  };
}

/** A shoot namespace as the secrets manager leaves it (plus secrets that must be ignored). */
const SECRETS: V1Secret[] = [
  secret(
    'ca-5a2b9d1e',
    '2024-01-01T00:00:00Z',
    { name: 'ca' },
    { 'ca.crt': b64(CLUSTER_CA), 'ca.key': b64('k') },
  ),
  secret(
    'ca-bundle-3f4a1c2e',
    '2024-01-01T00:00:01Z',
    { name: 'ca-bundle', 'bundle-for': 'ca' },
    {
      'bundle.crt': b64(CLUSTER_CA),
    },
  ),
  secret(
    'ca-kubelet-bundle-7c1e22b0',
    '2024-01-01T00:00:01Z',
    { name: 'ca-kubelet-bundle', 'bundle-for': 'ca-kubelet' },
    {
      'bundle.crt': b64(KUBELET_CA),
    },
  ),
  secret(
    'ssh-keypair-1a2b3c4d',
    '2024-01-01T00:00:00Z',
    { name: 'ssh-keypair' },
    { 'id_rsa.pub': b64(SSH_OLD) },
  ),
  secret(
    'ssh-keypair-5e6f7a8b',
    '2024-04-01T00:00:00Z',
    { name: 'ssh-keypair' },
    { 'id_rsa.pub': b64(SSH_CURRENT) },
  ),
  { metadata: { name: 'gardener-internal', namespace: NS }, data: { kubeconfig: b64('apiVersion: v1') } },
];

const IMAGES = { nodeAgent: 'europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.91.2' };

// Upstream: gardener v1.91.4 pkg/gardenlet/operation/botanist/operatingsystemconfig.go.
describe('shoot-secrets: render values from the seed', () => {
  it('CA bundles, secret name, current then old SSH key, caller images and node logging; no apiServerUrl', () => {
    const result = renderValuesFromSeed({
      secrets: SECRETS,
      sshAccessEnabled: true,
      images: IMAGES,
      nodeLogging: true,
    });
    expect(result).to.deep.equal({
      ok: true,
      rotating: false,
      values: {
        caBundles: { cluster: CLUSTER_CA, clusterSecretName: 'ca-bundle-3f4a1c2e', kubelet: KUBELET_CA },
        sshPublicKeys: [SSH_CURRENT, SSH_OLD],
        images: IMAGES,
        nodeLogging: true,
      },
    });
    if (!result.ok) throw new Error('unreachable');
    expect(result.values).to.not.have.property('apiServerUrl');
    expect(RenderValuesSchema.parse(result.values)).to.deep.equal(result.values);
  });

  it('the renderer derives the API server URL and uses the bundle secret name for the legacy downloader', () => {
    const raw = parseYaml(readFileSync(join(import.meta.dirname, '../../../examples/cluster.yaml'), 'utf8'));
    const cluster = decodeCluster(raw);
    if (!cluster.ok) throw new Error(JSON.stringify(cluster.errors));
    const result = renderValuesFromSeed({ secrets: SECRETS, sshAccessEnabled: true });
    if (!result.ok) throw new Error(result.reasons.join('; '));
    const shoot = shootValues(cluster.value, result.values, true);
    expect(shoot.apiServerUrl).to.match(/^https:\/\/api\.demo\.dev\.internal\./);
    expect(shoot.clusterCa).to.deep.equal({ bundle: CLUSTER_CA, secretName: 'ca-bundle-3f4a1c2e' });
    expect(shoot.kubeletCaBundle).to.equal(KUBELET_CA);
  });

  it('passes apiServerUrl and clusterDnsAddress only when the caller gives them', () => {
    const result = renderValuesFromSeed({
      secrets: SECRETS,
      sshAccessEnabled: true,
      apiServerUrl: 'https://api.demo.dev.internal.example.com',
      clusterDnsAddress: '100.64.0.10',
    });
    expect(result).to.deep.include({ ok: true });
    if (!result.ok) throw new Error('unreachable');
    expect(result.values.apiServerUrl).to.equal('https://api.demo.dev.internal.example.com');
    expect(result.values.clusterDnsAddress).to.equal('100.64.0.10');
    expect(result.values).to.not.have.property('images');
    expect(result.values).to.not.have.property('nodeLogging');
  });

  it('SSH access disabled: no keys, and a missing keypair is not an error', () => {
    const withoutSsh = SECRETS.filter((s) => s.metadata?.labels?.name !== 'ssh-keypair');
    const result = renderValuesFromSeed({ secrets: withoutSsh, sshAccessEnabled: false });
    expect(result).to.deep.include({ ok: true });
    if (!result.ok) throw new Error('unreachable');
    expect(result.values).to.not.have.property('sshPublicKeys');
  });

  it('mid CA rotation: the newest bundle, rotating=true (render and requeue)', () => {
    const rotating = [
      ...SECRETS,
      secret(
        'ca-bundle-91d0e7aa',
        '2024-06-01T00:00:00Z',
        { name: 'ca-bundle', 'bundle-for': 'ca' },
        {
          'bundle.crt': b64(CLUSTER_CA + NEW_CLUSTER_CA),
        },
      ),
    ];
    const result = renderValuesFromSeed({ secrets: rotating, sshAccessEnabled: true });
    expect(result).to.deep.include({ ok: true, rotating: true });
    if (!result.ok) throw new Error('unreachable');
    expect(result.values.caBundles).to.deep.equal({
      cluster: CLUSTER_CA + NEW_CLUSTER_CA,
      clusterSecretName: 'ca-bundle-91d0e7aa',
      kubelet: KUBELET_CA,
    });
  });

  it('reports every missing piece at once', () => {
    expect(renderValuesFromSeed({ secrets: [], sshAccessEnabled: true })).to.deep.equal({
      ok: false,
      reasons: [
        'CA bundle for "ca" not found: no secret labelled bundle-for=ca,managed-by=secrets-manager,manager-identity=gardenlet',
        'CA bundle for "ca-kubelet" not found: no secret labelled bundle-for=ca-kubelet,managed-by=secrets-manager,manager-identity=gardenlet',
        'SSH access is enabled but SSH keypair not found: no secret labelled managed-by=secrets-manager,manager-identity=gardenlet,name=ssh-keypair',
      ],
    });
  });

  it('values the schema rejects are reported, not returned', () => {
    const result = renderValuesFromSeed({
      secrets: SECRETS,
      sshAccessEnabled: true,
      apiServerUrl: 'http://api.insecure',
    });
    expect(result.ok).to.equal(false);
    if (result.ok) throw new Error('unreachable');
    expect(result.reasons).to.have.length(1);
    expect(result.reasons[0]).to.match(/^render values apiServerUrl: /);
  });
});
