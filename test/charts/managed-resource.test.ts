import { expect } from 'chai';
import { type OperatingSystemConfig, sha256Hex } from '../../api/index.js';
import {
  managedResource,
  managedResourceSecret,
  registryData,
  registryKey,
} from '../../charts/managed-resource/managed-resource.js';
import { oscSecret, oscYaml } from '../../charts/managed-resource/osc-secret.js';
import { nodeAgentRbac } from '../../charts/managed-resource/rbac.js';

const noSecrets = () => undefined;

/** The OSC fixture of upstream's botanist test (S-TV-22): only names, no content. */
function fixture(name: string, units: string[], files: string[]): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name },
    spec: {
      purpose: '' as never,
      type: '',
      units: units.map((n) => ({ name: n })),
      files: files.map((p) => ({ path: p, content: {} })),
    },
  };
}

const S_TV_8_ROLE = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  creationTimestamp: null
  name: gardener-node-agent
  namespace: kube-system
rules:
- apiGroups:
  - ""
  resourceNames:
  - gardener-node-agent
  - gardener-valitail
  - osc-secret1
  - osc-secret2
  resources:
  - secrets
  verbs:
  - get
  - list
  - watch
- apiGroups:
  - coordination.k8s.io
  resources:
  - leases
  verbs:
  - get
  - list
  - watch
  - create
  - update
`;

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/rbac.go,
// pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/secrets.go,
// pkg/gardenlet/operation/botanist/operatingsystemconfig.go.
describe('ManagedResource shoot-gardener-node-agent', () => {
  it('S-TV-8: seven RBAC objects under the registry keys, the Role byte for byte', () => {
    const data = registryData(nodeAgentRbac(['osc-secret1', 'osc-secret2'], 'serviceAccount'));
    expect(Object.keys(data).sort()).to.deep.equal(
      [
        'clusterrole____gardener-node-agent.yaml',
        'clusterrolebinding____gardener-node-agent.yaml',
        'role__kube-system__gardener-node-agent.yaml',
        'rolebinding__kube-system__gardener-node-agent.yaml',
        'clusterrolebinding____system_node-bootstrapper.yaml',
        'clusterrolebinding____system_certificates.k8s.io_certificatesigningrequests_nodeclient.yaml',
        'clusterrolebinding____system_certificates.k8s.io_certificatesigningrequests_selfnodeclient.yaml',
      ].sort(),
    );
    expect(data['role__kube-system__gardener-node-agent.yaml']).to.equal(S_TV_8_ROLE);
    expect(data['rolebinding__kube-system__gardener-node-agent.yaml']).to.contain(
      'subjects:\n- kind: Group\n  name: system:bootstrappers\n- kind: ServiceAccount\n  name: gardener-node-agent\n  namespace: kube-system\n',
    );
    expect(data['clusterrolebinding____system_node-bootstrapper.yaml']).to.contain(
      'subjects:\n- apiGroup: rbac.authorization.k8s.io\n  kind: Group\n  name: system:bootstrappers\n',
    );
  });

  it('with per-node identities: the bootstrap bindings and the admission policy, no secret for bootstrappers', () => {
    const data = registryData(nodeAgentRbac(['osc-secret1', 'osc-secret2'], 'node'));
    expect(Object.keys(data).sort()).to.deep.equal(
      [
        'clusterrolebinding____system_node-bootstrapper.yaml',
        'clusterrolebinding____system_certificates.k8s.io_certificatesigningrequests_nodeclient.yaml',
        'clusterrolebinding____system_certificates.k8s.io_certificatesigningrequests_selfnodeclient.yaml',
        'clusterrolebinding____gardener-node-agent_request-identity.yaml',
        'validatingadmissionpolicy____gardener-node-agent.yaml',
        'validatingadmissionpolicybinding____gardener-node-agent.yaml',
        'validatingadmissionpolicy____gardener-node-agent-kubelet.yaml',
        'validatingadmissionpolicybinding____gardener-node-agent-kubelet.yaml',
      ].sort(),
    );
    const all = Object.values(data).join('\n');
    expect(all).not.to.contain('secrets').and.not.to.contain('osc-secret1');
    expect(data['validatingadmissionpolicybinding____gardener-node-agent.yaml']).to.contain(
      'policyName: gardener-node-agent\n  validationActions:\n  - Deny\n',
    );
  });

  it('S-TV-22: OSC secret checksums and ManagedResource secret names', () => {
    const cases = [
      {
        osc: fixture('worker1-original', ['w1u1', 'w1u2'], ['w1f1', 'w1f2']),
        secret: 'gardener-node-agent-worker1-77ac3',
        pool: 'worker1',
      },
    ];
    const [c] = cases;
    const yaml = oscYaml(c!.osc, noSecrets);
    expect(sha256Hex(yaml)).to.equal('09bae1b0b2b97bb8be93025841e4223c41800dba14e09363020ea3116dbe2c7c');
    const secret = oscSecret(c!.osc, c!.secret, c!.pool, noSecrets);
    const mrSecret = managedResourceSecret(
      'shoot-gardener-node-agent',
      'shoot-gardener-node-agent-worker1',
      'ns',
      registryData([secret]),
    );
    expect(mrSecret.metadata.name).to.equal('managedresource-shoot-gardener-node-agent-worker1-c12d125b');
  });

  it('names MR secrets by checksum and references them from the ManagedResource', () => {
    const secret = managedResourceSecret(
      'shoot-gardener-node-agent',
      'shoot-gardener-node-agent-rbac',
      'shoot--p--s',
      { 'a.yaml': 'x' },
    );
    expect(secret).to.deep.include({ type: 'Opaque', immutable: true });
    expect(secret.metadata.labels).to.deep.equal({
      'managed-resource': 'shoot-gardener-node-agent',
      'resources.gardener.cloud/garbage-collectable-reference': 'true',
    });
    const mr = managedResource('shoot-gardener-node-agent', 'shoot--p--s', [secret.metadata.name]);
    expect(mr.metadata.labels).to.deep.equal({ origin: 'gardener' });
    expect(mr.metadata.annotations).to.deep.equal({
      [`reference.resources.gardener.cloud/secret-${sha256Hex(secret.metadata.name).slice(0, 8)}`]:
        secret.metadata.name,
    });
    expect(mr.spec).to.deep.equal({
      secretRefs: [{ name: secret.metadata.name }],
      injectLabels: { 'shoot.gardener.cloud/no-cleanup': 'true' },
      keepObjects: false,
    });
    expect(registryKey({ kind: 'ClusterRoleBinding', metadata: { name: 'a:b' } })).to.equal(
      'clusterrolebinding____a_b.yaml',
    );
  });

  it('the OSC secret checksum ignores timestamps, operations and OS extension status noise (docs/compatibility.md 10)', () => {
    const base = fixture('pool-original', ['u'], ['/f']);
    const a = oscSecret(
      {
        ...base,
        metadata: {
          ...base.metadata,
          annotations: {
            'gardener.cloud/timestamp': '2024-01-01T00:00:00Z',
            'gardener.cloud/operation': 'reconcile',
          },
        },
      },
      's',
      'p',
      noSecrets,
    );
    const b = oscSecret(
      {
        ...base,
        metadata: {
          ...base.metadata,
          resourceVersion: '42',
          uid: 'u',
          annotations: { 'gardener.cloud/timestamp': '2025-06-01T00:00:00Z' },
        },
        status: {
          lastOperation: {
            description: 'ok',
            lastUpdateTime: 'now',
            progress: 100,
            state: 'Succeeded',
            type: 'Reconcile',
          },
          observedGeneration: 7,
        },
      },
      's',
      'p',
      noSecrets,
    );
    expect(a.metadata.annotations).to.deep.equal(b.metadata.annotations);
    const changed = oscSecret(fixture('pool-original', ['u', 'v'], ['/f']), 's', 'p', noSecrets);
    expect(changed.metadata.annotations['checksum/data-script']).not.to.equal(
      a.metadata.annotations['checksum/data-script'],
    );
  });

  it('keeps what the OS extension added for nodes and inlines secret references', () => {
    const osc = fixture('pool-original', ['u'], []);
    osc.spec.files = [
      { path: '/ca.crt', permissions: 0o644, content: { secretRef: { name: 'ca', dataKey: 'bundle.crt' } } },
    ];
    osc.status = { extensionUnits: [{ name: 'ext.service', enable: true }] };
    const yaml = oscYaml(osc, (name) => (name === 'ca' ? { 'bundle.crt': 'PEM' } : undefined));
    expect(yaml).to.contain('extensionUnits:\n  - enable: true\n    name: ext.service\n');
    expect(yaml).to.contain(
      `inline:\n        data: ${Buffer.from('PEM').toString('base64')}\n        encoding: b64\n`,
    );
    expect(yaml).not.to.contain('secretRef');
    expect(() => oscYaml(osc, noSecrets)).to.throw(
      'cannot resolve secret ref from osc: secrets "ca" not found',
    );
    expect(() => oscYaml(osc, () => ({ other: 'x' }))).to.throw(
      'cannot resolve secret ref from osc: secret "ca" has no data key "bundle.crt"',
    );
  });

  it('inlines the exact bytes of a secret, invalid UTF-8 included (Go copies []byte)', () => {
    const osc = fixture('pool-original', [], []);
    osc.spec.files = [{ path: '/x', content: { secretRef: { name: 's', dataKey: 'k' } } }];
    const bytes = Uint8Array.from([0x63, 0x61, 0x66, 0xe9]); // "caf\xE9", Latin-1, not UTF-8
    const yaml = oscYaml(osc, () => ({ k: bytes }));
    expect(yaml).to.contain('data: Y2Fm6Q==\n');
  });

  describe('S-TV-9: OperatingSystemConfigSecret (upstream nodeagent/secrets_test.go)', () => {
    const stv9 = (): OperatingSystemConfig => ({
      apiVersion: 'extensions.gardener.cloud/v1alpha1',
      kind: 'OperatingSystemConfig',
      metadata: {
        name: 'osc-name',
        namespace: 'namespace',
        resourceVersion: '1',
        uid: 'foo',
        ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }],
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
    });
    const seed = (name: string) => (name === 'file-secret' ? { foo: Buffer.from('bar') } : undefined);

    it('should generate the expected secret', () => {
      const secret = oscSecret(stv9(), 'secret-name', 'worker-pool-name', seed);
      expect(secret.metadata).to.deep.equal({
        name: 'secret-name',
        namespace: 'kube-system',
        annotations: {
          'checksum/data-script': 'b0a0d190d45f0d67d97bf30d7e45d9cbbaa86bbe99f34bc095a6fd172d1a18a2',
        },
        labels: {
          'gardener.cloud/role': 'operating-system-config',
          'worker.gardener.cloud/pool': 'worker-pool-name',
        },
      });
      expect(
        Buffer.from(secret.data['osc.yaml']!, 'base64').toString(),
      ).to.equal(`apiVersion: extensions.gardener.cloud/v1alpha1
kind: OperatingSystemConfig
metadata:
  annotations:
    bar: foo
  creationTimestamp: null
  labels:
    foo: bar
  name: osc-name
spec:
  files:
  - content:
      inline:
        data: ${Buffer.from('bar').toString('base64')}
        encoding: b64
    path: /some/path
  purpose: ""
  type: ""
  units:
  - name: some-unit.service
status:
  extensionUnits:
  - name: some-other-unit.service
`);
    });

    it('should return an error because a referenced secret cannot be found', () => {
      const osc = stv9();
      osc.spec.files!.push({
        path: '/non/existing/path',
        content: { secretRef: { name: 'non-existing', dataKey: 'foo' } },
      });
      expect(() => oscSecret(osc, 'secret-name', 'worker-pool-name', seed)).to.throw(
        'cannot resolve secret ref from osc: secrets "non-existing" not found',
      );
    });
  });
});
