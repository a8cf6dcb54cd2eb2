import { expect } from 'chai';
import { NODE_AGENT_UNIT_CONTENT } from '../../api/node-agent-unit.js';
import { oscSecretUpdateChangesOsc, readOscSecret } from '../../api/objects/osc-secret.js';
import {
  DOWNLOADER_ACCESS,
  NODE_AGENT_ACCESS,
  shootAccessSecret,
} from '../../api/objects/shoot-access-secret.js';

describe('contract objects', () => {
  it('S-TV-5: the shoot access secret of the node agent', () => {
    expect(shootAccessSecret({ ...NODE_AGENT_ACCESS, namespace: 'shoot--p--s' })).to.deep.equal({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'shoot-access-gardener-node-agent',
        namespace: 'shoot--p--s',
        labels: {
          'resources.gardener.cloud/purpose': 'token-requestor',
          'resources.gardener.cloud/class': 'shoot',
        },
        annotations: {
          'serviceaccount.resources.gardener.cloud/name': 'gardener-node-agent',
          'serviceaccount.resources.gardener.cloud/namespace': 'kube-system',
          'serviceaccount.resources.gardener.cloud/token-expiration-duration': '720h',
          'token-requestor.resources.gardener.cloud/target-secret-name': 'gardener-node-agent',
          'token-requestor.resources.gardener.cloud/target-secret-namespace': 'kube-system',
        },
      },
      type: 'Opaque',
    });
    const ccd = shootAccessSecret({ ...DOWNLOADER_ACCESS, namespace: 'ns' });
    expect(ccd.metadata.name).to.equal('shoot-access-cloud-config-downloader');
    expect(ccd.metadata.annotations['serviceaccount.resources.gardener.cloud/name']).to.equal(
      'cloud-config-downloader',
    );
    expect(ccd.metadata.annotations['token-requestor.resources.gardener.cloud/target-secret-name']).to.equal(
      'cloud-config-downloader',
    );
  });

  describe('N-TV-03: which OSC secret updates matter', () => {
    const secret = (osc?: string, annotations: Record<string, string> = {}) => ({
      metadata: { name: 'osc-secret', annotations },
      data: osc === undefined ? undefined : { 'osc.yaml': Buffer.from(osc).toString('base64') },
    });
    it('an update of something that is not a Secret does not', () => {
      expect(oscSecretUpdateChangesOsc({ kind: 'ConfigMap', metadata: {} }, secret('foo'))).to.equal(false);
      expect(oscSecretUpdateChangesOsc(secret('foo'), null)).to.equal(false);
    });
    it('the same object does not; annotation-only changes do not', () => {
      const s = secret('foo');
      expect(oscSecretUpdateChangesOsc(s, s)).to.equal(false);
      expect(oscSecretUpdateChangesOsc(secret('foo'), secret('foo', { a: 'b' }))).to.equal(false);
    });
    it('a change of osc.yaml does', () => {
      expect(oscSecretUpdateChangesOsc(secret(), secret('foo'))).to.equal(true);
    });
  });

  it('reads osc.yaml, its checksum, and names what is wrong', () => {
    const yaml =
      'apiVersion: extensions.gardener.cloud/v1alpha1\nkind: OperatingSystemConfig\nmetadata: {}\nspec: {purpose: reconcile, type: x}\n';
    const read = readOscSecret({
      metadata: { annotations: { 'checksum/data-script': 'abc' } },
      data: { 'osc.yaml': Buffer.from(yaml).toString('base64') },
    });
    expect(read.raw).to.equal(yaml);
    expect(read.checksum).to.equal('abc');
    expect(read.osc.spec.purpose).to.equal('reconcile');
    expect(() => readOscSecret({ metadata: {}, data: {} })).to.throw('no osc.yaml key found in OSC secret');
    expect(() =>
      readOscSecret({ metadata: {}, data: { 'osc.yaml': Buffer.from('kind: Foo').toString('base64') } }),
    ).to.throw(/apiVersion/);
  });

  it("invalid UTF-8 in osc.yaml: YAML is refused with go-yaml's message, JSON gets U+FFFD (as upstream)", () => {
    const head = 'apiVersion: extensions.gardener.cloud/v1alpha1\nkind: OperatingSystemConfig\n';
    const yaml = Buffer.concat([
      Buffer.from(`${head}spec:\n  files:\n  - path: /x\n    content:\n      inline:\n        data: caf`),
      Buffer.from([0xe9]),
      Buffer.from('\n'),
    ]);
    expect(() => readOscSecret({ metadata: {}, data: { 'osc.yaml': yaml.toString('base64') } })).to.throw(
      'unable to decode OSC from secret data key osc.yaml: yaml: incomplete UTF-8 octet sequence',
    );
    const json = Buffer.concat([
      Buffer.from(
        '{"apiVersion":"extensions.gardener.cloud/v1alpha1","kind":"OperatingSystemConfig","spec":{"files":[{"path":"/x","content":{"inline":{"data":"caf',
      ),
      Buffer.from([0xe9]),
      Buffer.from('"}}}]}}'),
    ]);
    const read = readOscSecret({ metadata: {}, data: { 'osc.yaml': json.toString('base64') } });
    expect(read.osc.spec.files?.[0]?.content.inline?.data).to.equal('caf\uFFFD');
  });

  // Upstream: gardener v1.91.4
  // pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/component.go,
  // pkg/nodeagent/bootstrap/bootstrap.go.
  it('the node agent unit is the one gardenlet renders and bootstrap writes', () => {
    expect(NODE_AGENT_UNIT_CONTENT).to.equal(
      '[Unit]\nDescription=Gardener Node Agent\nAfter=network-online.target\n\n[Service]\nLimitMEMLOCK=infinity\n' +
        'ExecStart=/opt/bin/gardener-node-agent --config=/var/lib/gardener-node-agent/config.yaml\nRestart=always\nRestartSec=5\n\n' +
        '[Install]\nWantedBy=multi-user.target',
    );
  });
});
