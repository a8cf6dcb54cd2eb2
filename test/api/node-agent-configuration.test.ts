import { expect } from 'chai';
import { sha256Hex } from '../../api/checksum.js';
import { parseGoDuration } from '../../api/duration.js';
import {
  encodeNodeAgentConfiguration,
  loadNodeAgentConfiguration,
  type NodeAgentConfiguration,
  nodeAgentConfigurationFromObject,
  validateNodeAgentConfiguration,
  withNodeAgentDefaults,
} from '../../api/schema/node-agent-configuration.js';
import { parseSemVer } from '../../api/semver.js';
import { PATH } from '../../api/well-known/paths.js';
import { parseYaml } from '../../api/yaml/codec.js';

const TOKEN = { secretName: 'gardener-node-agent', path: '/var/lib/gardener-node-agent/credentials/token' };
const b64 = (s: string) => Buffer.from(s).toString('base64');

/**
 * ComponentConfig(...) of gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/component.go: what
 * gardenlet renders, undefaulted.
 */
function componentConfig(o: {
  secretName: string;
  version?: string;
  caBundle?: string;
  jitter: string;
  extra?: { secretName: string; path: string }[];
  bootstrap?: NodeAgentConfiguration['bootstrap'];
}): NodeAgentConfiguration {
  return {
    clientConnection: {},
    server: {},
    apiServer: { server: 'https://localhost', caBundle: o.caBundle === undefined ? null : b64(o.caBundle) },
    ...(o.bootstrap ? { bootstrap: o.bootstrap } : {}),
    controllers: {
      operatingSystemConfig: {
        secretName: o.secretName,
        kubernetesVersion: o.version ? parseSemVer(o.version) : null,
        syncJitterPeriod: parseGoDuration(o.jitter),
      },
      token: { syncConfigs: [TOKEN, ...(o.extra ?? [])], syncPeriod: parseGoDuration('12h') },
    },
  };
}

const S_TV_10 = `apiServer:
  caBundle: Y2EtYnVuZGxl
  server: https://localhost
apiVersion: nodeagent.config.gardener.cloud/v1alpha1
clientConnection:
  acceptContentTypes: ""
  burst: 0
  contentType: ""
  kubeconfig: ""
  qps: 0
controllers:
  operatingSystemConfig:
    kubernetesVersion: null
    secretName: osc-secret-name
    syncJitterPeriod: 1s
  token:
    syncConfigs:
    - path: /var/lib/gardener-node-agent/credentials/token
      secretName: gardener-node-agent
    - path: /var/lib/valitail/auth-token
      secretName: gardener-valitail
    syncPeriod: 12h0m0s
kind: NodeAgentConfiguration
logFormat: ""
logLevel: ""
server: {}
`;

/** A valid base (N-TV-02) to mutate. */
function valid(): NodeAgentConfiguration {
  return withNodeAgentDefaults({
    clientConnection: {},
    server: {},
    apiServer: {},
    controllers: {
      operatingSystemConfig: {
        secretName: 'osc-secret',
        syncPeriod: parseGoDuration('1m'),
        kubernetesVersion: parseSemVer('v1.27.0'),
      },
      token: { syncConfigs: [{ ...TOKEN }], syncPeriod: parseGoDuration('1h') },
    },
  });
}

const errorsOf = (c: NodeAgentConfiguration) =>
  validateNodeAgentConfiguration(c).map((e) => `${e.type} ${e.field}`);

// Upstream: gardener v1.91.4 pkg/nodeagent/apis/config/v1alpha1/types.go.
describe('NodeAgentConfiguration', () => {
  describe('serialisation', () => {
    it('S-TV-10: the component config renders byte for byte', () => {
      const yaml = encodeNodeAgentConfiguration(
        componentConfig({
          secretName: 'osc-secret-name',
          caBundle: 'ca-bundle',
          jitter: '1s',
          extra: [{ secretName: 'gardener-valitail', path: '/var/lib/valitail/auth-token' }],
        }),
      );
      expect(yaml).to.equal(S_TV_10);
      expect(sha256Hex(yaml)).to.equal('fcfbccca20ef59972af07ce5836b6a502d995d7721fda903b116f3b16d19a7ae');
    });

    it('S-TV-11: the provision copy with bootstrap section (571 bytes) and with a data volume size', () => {
      const base = { secretName: 'osc-secret-name', version: '1.2.3', caBundle: 'cluster-ca', jitter: '1s' };
      const yaml = encodeNodeAgentConfiguration(componentConfig({ ...base, bootstrap: {} }));
      expect(yaml).to.contain(
        'apiVersion: nodeagent.config.gardener.cloud/v1alpha1\nbootstrap: {}\nclientConnection:\n',
      );
      expect(yaml).to.contain('caBundle: Y2x1c3Rlci1jYQ==');
      expect(yaml).to.contain('kubernetesVersion: 1.2.3\n');
      expect(Buffer.byteLength(yaml)).to.equal(571);
      expect(sha256Hex(yaml)).to.equal('de59af6861e7f8f3df729462de8b3da591bb62592a64570b99c97737f73ce7c1');
      const sized = encodeNodeAgentConfiguration(
        componentConfig({ ...base, bootstrap: { kubeletDataVolumeSize: 1369088 } }),
      );
      expect(sized).to.contain('bootstrap:\n  kubeletDataVolumeSize: 1369088\n');
      expect(sha256Hex(sized)).to.equal('5d6305864768f88e615ff2279564690d09a06e675c6d340aa3db69c20aab4131');
    });

    it('writes a nil CA bundle as null and decodes what it writes', () => {
      const config = componentConfig({ secretName: 's', version: '1.30.1', jitter: '5m' });
      const yaml = encodeNodeAgentConfiguration(config);
      expect(yaml).to.contain('caBundle: null');
      const decoded = nodeAgentConfigurationFromObject(parseYaml(yaml));
      expect(decoded.ok && encodeNodeAgentConfiguration(decoded.value)).to.equal(yaml);
    });
  });

  describe('defaulting (S-TV-7, N-TV-01)', () => {
    it('fills every default of an empty configuration', () => {
      const c = withNodeAgentDefaults({
        clientConnection: {},
        server: {},
        apiServer: {},
        controllers: { operatingSystemConfig: {}, token: {} },
      });
      expect(c.logLevel).to.equal('info');
      expect(c.logFormat).to.equal('json');
      expect(c.clientConnection).to.deep.equal({
        contentType: 'application/vnd.kubernetes.protobuf',
        qps: 50,
        burst: 100,
      });
      expect(c.server).to.deep.equal({
        healthProbes: { bindAddress: '', port: 2751 },
        metrics: { bindAddress: '', port: 2752 },
      });
      expect(c.controllers.operatingSystemConfig.syncPeriod).to.equal(parseGoDuration('10m'));
      expect(c.controllers.operatingSystemConfig.syncJitterPeriod).to.equal(parseGoDuration('5m'));
      expect(c.controllers.token.syncPeriod).to.equal(parseGoDuration('1h'));
    });

    it('never overwrites, and never validates', () => {
      const c = withNodeAgentDefaults({
        logLevel: 'foo',
        logFormat: 'bar',
        clientConnection: { qps: 100, burst: 130 },
        server: { healthProbes: { bindAddress: '1', port: 2345 }, metrics: { bindAddress: '6', port: 7890 } },
        apiServer: {},
        controllers: {
          operatingSystemConfig: { syncPeriod: 1e9, syncJitterPeriod: 60e9 },
          token: { syncPeriod: 1e9 },
        },
      });
      expect([c.logLevel, c.logFormat]).to.deep.equal(['foo', 'bar']);
      expect(c.clientConnection).to.include({ qps: 100, burst: 130 });
      expect(c.server.healthProbes).to.deep.equal({ bindAddress: '1', port: 2345 });
      expect(c.server.metrics).to.deep.equal({ bindAddress: '6', port: 7890 });
      expect(c.controllers.operatingSystemConfig).to.include({ syncPeriod: 1e9, syncJitterPeriod: 60e9 });
      expect(c.controllers.token.syncPeriod).to.equal(1e9);
    });
  });

  describe('validation (S-TV-7, N-TV-02) reports Gardener field paths', () => {
    it('accepts the base configuration', () => {
      expect(errorsOf(valid())).to.deep.equal([]);
    });

    const cases: [string, (c: NodeAgentConfiguration) => void, string[]][] = [
      ['kubernetesVersion nil', (c) => (c.controllers.operatingSystemConfig.kubernetesVersion = null), ['Required controllers.operatingSystemConfig.kubernetesVersion']],
      ['secretName empty', (c) => (c.controllers.operatingSystemConfig.secretName = ''), ['Required controllers.operatingSystemConfig.secretName']],
      ['OSC syncPeriod 10s', (c) => (c.controllers.operatingSystemConfig.syncPeriod = 10e9), ['Invalid controllers.operatingSystemConfig.syncPeriod']],
      ['sync config without secret', (c) => c.controllers.token.syncConfigs!.push({ secretName: '', path: '/some/path' }), ['Required controllers.token.syncConfigs[1].secretName']],
      ['sync config without path', (c) => c.controllers.token.syncConfigs!.push({ secretName: '/some/secret', path: '' }), ['Required controllers.token.syncConfigs[1].path']],
      ['duplicate path', (c) => c.controllers.token.syncConfigs!.push({ secretName: 'other-secret', path: TOKEN.path }), ['Duplicate controllers.token.syncConfigs[1].path']],
      ['no sync configs', (c) => (c.controllers.token.syncConfigs = undefined), ['Required controllers.token.syncConfigs']],
      ['per-node identity, no shared token', (c) => { c.clientConnection.kubeconfig = PATH.nodeAgentKubeconfig; c.controllers.token.syncConfigs = undefined; }, []],
      ['another kubeconfig, no shared token', (c) => { c.clientConnection.kubeconfig = '/etc/kubeconfig'; c.controllers.token.syncConfigs = undefined; }, ['Required controllers.token.syncConfigs']],
      ['token syncPeriod 10s', (c) => (c.controllers.token.syncPeriod = 10e9), ['Invalid controllers.token.syncPeriod']],
      ['unsupported kubernetes version', (c) => (c.controllers.operatingSystemConfig.kubernetesVersion = parseSemVer('1.24.3')), ['Invalid controllers.operatingSystemConfig.kubernetesVersion']],
      ['log level', (c) => (c.logLevel = 'trace'), ['NotSupported logLevel']],
      ['log format', (c) => (c.logFormat = 'xml'), ['NotSupported logFormat']],
      ['feature gate', (c) => (c.featureGates = { Foo: true }), ['NotSupported featureGates.Foo']],
    ]; // biome-ignore format: one mutation per line, as the table of N-TV-02

    for (const [name, mutate, expected] of cases) {
      it(name, () => {
        const c = valid();
        mutate(c);
        expect(errorsOf(c)).to.deep.equal(expected);
      });
    }

    it('explains why a value is wrong', () => {
      const c = valid();
      c.controllers.operatingSystemConfig.syncPeriod = 10e9;
      expect(validateNodeAgentConfiguration(c)[0]).to.deep.include({
        value: '10s',
        detail: 'must be at least 15s',
      });
    });
  });

  describe('loading a config file', () => {
    const FILE = `apiVersion: nodeagent.config.gardener.cloud/v1alpha1
kind: NodeAgentConfiguration
apiServer: {server: https://api.example.com, caBundle: Y2E=}
controllers:
  operatingSystemConfig: {secretName: gardener-node-agent-pool-88db5, kubernetesVersion: v1.28.2, syncJitterPeriod: 5m0s}
  token:
    syncConfigs: [{secretName: gardener-node-agent, path: /var/lib/gardener-node-agent/credentials/token}]
    syncPeriod: 12h0m0s
futureField: {from: a newer gardenlet}
`;

    it('decodes tolerantly (unknown fields ignored), defaults and validates', () => {
      const r = loadNodeAgentConfiguration(FILE);
      expect(r.ok, JSON.stringify(r)).to.equal(true);
      if (!r.ok) return;
      expect(r.value.controllers.operatingSystemConfig.kubernetesVersion).to.deep.include({
        major: 1,
        minor: 28,
        patch: 2,
      });
      expect(r.value.controllers.operatingSystemConfig.syncPeriod).to.equal(600e9);
      expect(r.value.logFormat).to.equal('json');
    });

    it('reads null as Go does: nil or the zero value, then defaulted', () => {
      const r = loadNodeAgentConfiguration(
        `${FILE}logLevel: null\nclientConnection: {kubeconfig: null, qps: null}\nserver: null\nbootstrap: null\n`,
      );
      expect(r.ok, JSON.stringify(r)).to.equal(true);
      if (!r.ok) return;
      expect(r.value.logLevel).to.equal('info');
      expect(r.value.clientConnection).to.deep.include({ qps: 50 });
      expect(r.value.clientConnection.kubeconfig).to.equal(undefined);
      expect(r.value.server.healthProbes?.port).to.equal(2751);
      expect(r.value.bootstrap).to.equal(undefined);
    });

    it('names the field of a malformed value', () => {
      const r = loadNodeAgentConfiguration(FILE.replace('syncJitterPeriod: 5m0s', 'syncJitterPeriod: soon'));
      expect(r.ok).to.equal(false);
      if (r.ok) return;
      expect(r.errors.map((e) => e.field)).to.deep.equal([
        'controllers.operatingSystemConfig.syncJitterPeriod',
      ]);
      expect(r.errors[0]!.detail).to.contain('invalid duration "soon"');
    });

    it('rejects an unquoted version that YAML reads as a number, saying how to fix it', () => {
      const r = loadNodeAgentConfiguration(
        FILE.replace('kubernetesVersion: v1.28.2', 'kubernetesVersion: 1.28'),
      );
      expect(r.ok).to.equal(false);
      if (r.ok) return;
      expect(r.errors[0]).to.deep.include({ field: 'controllers.operatingSystemConfig.kubernetesVersion' });
      expect(r.errors[0]!.detail).to.contain('quote it');
    });

    it('rejects another apiVersion or kind, and syntax errors', () => {
      expect(loadNodeAgentConfiguration(FILE.replace('v1alpha1', 'v1beta1')).ok).to.equal(false);
      expect(loadNodeAgentConfiguration('a: [').ok).to.equal(false);
    });
  });
});
