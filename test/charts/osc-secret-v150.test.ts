/** The OSC secret of the Gardener v1.150.0 contract: the stripped `osc.yaml` and its checksum. */
import { expect } from 'chai';
import {
  oscSecretV150,
  oscYamlV150,
  type StrippableOscV150,
} from '../../charts/managed-resource/osc-secret-v150.js';

/** The OSC of upstream's own test (gardener v1.150.0 …/components/nodeagent/secrets_test.go). */
const UPSTREAM_OSC: StrippableOscV150 = {
  spec: {
    criConfig: {
      name: 'containerd',
      containerd: {
        sandboxImage: 'registry.k8s.io/pause:latest',
        registries: [{ upstream: 'registry.k8s.io' }],
      },
    },
    units: [{ name: 'some-unit.service' }],
    files: [{ path: '/some/path', content: { secretRef: { name: 'file-secret', dataKey: 'foo' } } }],
  },
  status: {
    extensionUnits: [{ name: 'some-other-unit.service' }],
    extensionFiles: [{ path: '/some/other/path', content: {} }],
  },
};

const secrets = (name: string) => (name === 'file-secret' ? { foo: 'bar' } : undefined);

describe('OSC secret of the v1.150.0 contract', () => {
  it("writes the bytes and the checksum of upstream's own test", () => {
    const yaml = oscYamlV150(UPSTREAM_OSC, secrets);
    expect(yaml).to.equal(`apiVersion: extensions.gardener.cloud/v1alpha1
kind: OperatingSystemConfig
metadata: {}
spec:
  criConfig:
    containerd:
      registries:
      - upstream: registry.k8s.io
      sandboxImage: registry.k8s.io/pause:latest
    name: containerd
  files:
  - content:
      inline:
        data: YmFy
        encoding: b64
    path: /some/path
  purpose: ""
  type: ""
  units:
  - name: some-unit.service
status:
  extensionFiles:
  - content: {}
    path: /some/other/path
  extensionUnits:
  - name: some-other-unit.service
`);
    const secret = oscSecretV150(UPSTREAM_OSC, 'secret-name', 'worker-pool-name', secrets);
    expect(secret.metadata).to.deep.equal({
      name: 'secret-name',
      namespace: 'kube-system',
      labels: {
        'gardener.cloud/role': 'operating-system-config',
        'worker.gardener.cloud/pool': 'worker-pool-name',
      },
      annotations: {
        'checksum/data-script': 'e92163ba634e290c2e13de35a778007114e201e168c0a27149d05ab5592e4d36',
      },
    });
    expect(Buffer.from(secret.data['osc.yaml']!, 'base64').toString('utf8')).to.equal(yaml);
  });

  it('writes an empty status as {} and leaves status file references to the agent', () => {
    const yaml = oscYamlV150({ spec: {} }, secrets);
    expect(yaml).to.equal(
      'apiVersion: extensions.gardener.cloud/v1alpha1\nkind: OperatingSystemConfig\nmetadata: {}\nspec:\n  purpose: ""\n  type: ""\nstatus: {}\n',
    );
    const withRef = oscYamlV150(
      {
        spec: {},
        status: {
          extensionFiles: [{ path: '/x', content: { secretRef: { name: 'file-secret', dataKey: 'foo' } } }],
        },
      },
      secrets,
    );
    expect(withRef).to.contain('secretRef:\n        dataKey: foo\n        name: file-secret\n');
  });

  it("refuses a spec file whose secret is missing, with upstream's wording", () => {
    const missing: StrippableOscV150 = {
      spec: { files: [{ path: '/y', content: { secretRef: { name: 'non-existing', dataKey: 'foo' } } }] },
    };
    expect(() => oscYamlV150(missing, secrets)).to.throw(
      'cannot resolve secret ref from osc: secrets "non-existing" not found',
    );
  });
});
