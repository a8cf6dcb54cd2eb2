import { expect } from 'chai';
import { decodeOperatingSystemConfig, decodeWith } from '../../api/decode.js';
import { hostPathProblem } from '../../api/schema/host-path.js';
import { StrictOsc, TolerantOsc } from '../../api/schema/operating-system-config.js';
import { stringifyYaml } from '../../api/yaml/codec.js';

const osc = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'extensions.gardener.cloud/v1alpha1',
  kind: 'OperatingSystemConfig',
  metadata: { name: 'gardener-node-agent-pool-88db5-gardenlinux-original' },
  spec: { type: 'gardenlinux', purpose: 'reconcile', ...spec },
  ...extra,
});

const UNIT = {
  name: 'kubelet.service',
  command: 'start',
  enable: true,
  content: '[Unit]\n',
  filePaths: ['/var/lib/kubelet/config/kubelet'],
};
const FILE = {
  path: '/var/lib/kubelet/config/kubelet',
  permissions: 0o644,
  content: { inline: { encoding: 'b64', data: 'eA==' } },
};

describe('OperatingSystemConfig schema', () => {
  it('accepts a full OSC in both modes', () => {
    const value = osc(
      {
        criConfig: { name: 'containerd' },
        providerConfig: { apiVersion: 'x/v1', anything: { goes: [1] } },
        reloadConfigFilePath: '/var/lib/cloud-config-downloader/downloads/cloud_config',
        units: [{ ...UNIT, dropIns: [{ name: '10-x.conf', content: '[Service]\n' }] }],
        files: [
          FILE,
          {
            path: '/opt/bin/kubelet',
            permissions: 0o755,
            content: { imageRef: { image: 'hyperkube:v1.28.2', filePathInImage: '/kubelet' } },
          },
        ],
      },
      {
        status: {
          extensionUnits: [{ name: 'x.service' }],
          cloudConfig: { secretRef: { name: 'cc', namespace: 'ns' } },
          observedGeneration: 2,
        },
      },
    );
    expect(decodeWith(StrictOsc.OperatingSystemConfig, value).ok).to.equal(true);
    expect(decodeWith(TolerantOsc.OperatingSystemConfig, value).ok).to.equal(true);
  });

  it('strict mode rejects fields we do not render; tolerant mode ignores them (a newer gardenlet)', () => {
    const value = osc({ units: [{ ...UNIT, futureKnob: true }], futureSpec: { os: '1' } });
    const strict = decodeWith(StrictOsc.OperatingSystemConfig, value);
    expect(strict.ok).to.equal(false);
    if (!strict.ok)
      expect(strict.errors.map((e) => `${e.type} ${e.field}`)).to.have.members([
        'Forbidden spec',
        'Forbidden spec.units[0]',
      ]);
    const tolerant = decodeWith(TolerantOsc.OperatingSystemConfig, value);
    expect(tolerant.ok).to.equal(true);
    if (tolerant.ok) expect(tolerant.value.spec.units?.[0]).not.to.have.property('futureKnob');
  });

  it("reads the fields of the v1.150.0 contract: criConfig, a file's hostName, inPlaceUpdates", () => {
    const value = osc(
      {
        class: 'shoot',
        criConfig: {
          name: 'containerd',
          cgroupDriver: 'systemd',
          containerd: {
            sandboxImage: 'registry.k8s.io/pause:3.10',
            registries: [
              {
                upstream: 'docker.io',
                server: 'https://registry-1.docker.io',
                hosts: [
                  {
                    url: 'https://mirror.local',
                    capabilities: ['pull', 'resolve'],
                    caCerts: ['/etc/ca.pem'],
                  },
                ],
                readinessProbe: true,
              },
            ],
            plugins: [{ op: 'add', path: ['io.containerd.grpc.v1.cri'], values: { enable_cdi: true } }],
          },
        },
        files: [{ ...FILE, hostName: 'node-a' }],
        inPlaceUpdates: {
          operatingSystemVersion: '1877.0.0',
          kubelet: '1.34.1',
          credentialsRotation: { certificateAuthorities: { lastInitiationTime: '2026-01-01T00:00:00Z' } },
        },
      },
      { status: { inPlaceUpdates: { osUpdate: { command: '/opt/bin/update', args: ['--now'] } } } },
    );
    for (const schema of [StrictOsc.OperatingSystemConfig, TolerantOsc.OperatingSystemConfig]) {
      const r = decodeWith(schema, value);
      expect(r.ok).to.equal(true);
      if (!r.ok) continue;
      expect(r.value.spec.criConfig?.containerd?.registries?.[0]?.hosts?.[0]?.capabilities).to.deep.equal([
        'pull',
        'resolve',
      ]);
      expect(r.value.spec.criConfig?.cgroupDriver).to.equal('systemd');
      expect(r.value.spec.files?.[0]?.hostName).to.equal('node-a');
      expect(r.value.spec.inPlaceUpdates?.kubelet).to.equal('1.34.1');
      expect(r.value.status?.inPlaceUpdates?.osUpdate?.args).to.deep.equal(['--now']);
    }
  });

  it('rejects the whole OSC for one bad path, naming it', () => {
    const r = decodeOperatingSystemConfig(
      stringifyYaml(osc({ files: [FILE, { ...FILE, path: '/etc/../etc/shadow' }] })),
    );
    expect(r.ok).to.equal(false);
    if (!r.ok)
      expect(r.errors).to.deep.equal([
        { type: 'Invalid', field: 'spec.files[1].path', detail: 'must not contain ".." segments' },
      ]);
  });

  it('rejects unit names that would escape /etc/systemd/system', () => {
    const r = decodeWith(TolerantOsc.OperatingSystemConfig, osc({ units: [{ name: '../../bin/evil' }] }));
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.errors[0]).to.deep.include({ field: 'spec.units[0].name' });
    const d = decodeWith(
      TolerantOsc.OperatingSystemConfig,
      osc({ units: [{ name: 'x.service', dropIns: [{ name: 'a/b', content: '' }] }] }),
    );
    expect(d.ok).to.equal(false);
  });

  it('rejects an unknown encoding with the node agent message', () => {
    const r = decodeWith(
      TolerantOsc.OperatingSystemConfig,
      osc({ files: [{ path: '/x', content: { inline: { encoding: 'gzip', data: '' } } }] }),
    );
    expect(r.ok).to.equal(false);
    if (!r.ok)
      expect(r.errors[0]).to.deep.include({
        field: 'spec.files[0].content.inline.encoding',
        detail: 'invalid file codec id "gzip"',
      });
  });

  it('writes only the two purposes and three commands (strict); reads any string, as Go does', () => {
    const odd = osc({ purpose: 'other', units: [{ name: 'a', command: 'reload' }] });
    const strict = decodeWith(StrictOsc.OperatingSystemConfig, odd);
    expect(strict.ok).to.equal(false);
    if (!strict.ok)
      expect(strict.errors.map((e) => e.field)).to.have.members(['spec.purpose', 'spec.units[0].command']);
    const tolerant = decodeWith(TolerantOsc.OperatingSystemConfig, odd);
    expect(tolerant.ok).to.equal(true);
    if (tolerant.ok) {
      expect(tolerant.value.spec.purpose).to.equal('other');
      expect(tolerant.value.spec.units?.[0]?.command).to.equal('reload');
    }
  });

  it("reads a missing or null field as Go's zero value (an inline file without encoding is plain text)", () => {
    const text = [
      'apiVersion: extensions.gardener.cloud/v1alpha1',
      'kind: OperatingSystemConfig',
      'metadata: null',
      'spec:',
      '  units:',
      '  - name: a.service',
      '    content: null',
      '    dropIns:',
      '    - name: x.conf',
      '  files:',
      '  - path: /etc/plain',
      '    content:',
      '      inline:',
      '        data: hello',
      '  - path: /etc/empty',
      '    content:',
      '      inline: {encoding: null}',
      '  - path: /etc/nothing',
      'status: null',
      '',
    ].join('\n');
    const r = decodeOperatingSystemConfig(text);
    expect(r.ok, JSON.stringify(r)).to.equal(true);
    if (!r.ok) return;
    expect(r.value.metadata).to.deep.equal({});
    expect(r.value.spec.type).to.equal('');
    expect(r.value.spec.purpose).to.equal('');
    expect(r.value.spec.units?.[0]?.content).to.equal(undefined);
    expect(r.value.spec.units?.[0]?.dropIns).to.deep.equal([{ name: 'x.conf', content: '' }]);
    expect(r.value.spec.files?.map((f) => f.content)).to.deep.equal([
      { inline: { encoding: '', data: 'hello' } },
      { inline: { encoding: '', data: '' } },
      {},
    ]);
    expect(r.value.status).to.equal(undefined);
  });

  it('checks host paths: absolute, normalised, no .., no NUL', () => {
    expect(hostPathProblem('/var/lib/kubelet/config/kubelet')).to.equal(undefined);
    expect(hostPathProblem('relative/path')).to.match(/absolute/);
    expect(hostPathProblem('/a//b')).to.match(/normalised/);
    expect(hostPathProblem('/a/./b')).to.match(/normalised/);
    expect(hostPathProblem('/a/../b')).to.match(/\.\./);
    expect(hostPathProblem('/a\0b')).to.match(/NUL/);
    expect(hostPathProblem('/a/')).to.match(/directory/);
    expect(hostPathProblem('/')).to.match(/directory/);
  });

  it('reports a YAML syntax error as an error of the document', () => {
    const r = decodeOperatingSystemConfig('spec: [');
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.errors[0]).to.deep.include({ type: 'Invalid', field: '' });
  });
});
