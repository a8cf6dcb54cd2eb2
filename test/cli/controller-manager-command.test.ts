/** `gardener-osc controller-manager` and `manifests`: configuration errors exit 2 naming the field; the manifests. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import fc from 'fast-check';
import { formatGoDuration, parseYaml, stringifyYaml, validateGardenerCoreObject } from '../../api/index.js';
import { authorizerCallerToken } from '../../charts/controller-manager/authorizer-caller-token.js';
import { manifests } from '../../cli/manifests-command.js';
import {
  CONTROLLER_MANAGER_API_VERSION,
  CONTROLLER_MANAGER_KIND,
  parseControllerManagerConfiguration,
} from '../../seed/manager/config.js';
import { expectGolden } from '../golden.js';
import { untar } from '../support/tar-read.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'cli/main.ts'), ...args], {
    encoding: 'utf8',
    cwd: ROOT,
  });

describe('gardener-osc controller-manager and manifests', function () {
  this.timeout(30_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'osc-cm-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 2 before starting anything when the configuration is invalid, naming every bad field', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'apiVersion: node-configuration.gardener.cloud/v1alpha1\nkind: ControllerManagerConfiguration\nclusterSelector:\n  matchLabels: {}\napplyMode: sideways\n',
    );
    const result = run('controller-manager', '--config', file);
    expect(result.status).to.equal(2);
    expect(result.stderr).to.include('clusterSelector.matchLabels');
    expect(result.stderr).to.include('applyMode');
  });

  const example = join(ROOT, 'examples/controller-manager.yaml');
  const configMapData = (text: string) => {
    const docs = text
      .split(/^---$/m)
      .map((d) => parseYaml(d) as { kind: string; data?: Record<string, string> });
    return docs.find((d) => d.kind === 'ConfigMap')!.data!['config.yaml']!;
  };

  it("prints the seed manifests (golden): RBAC, the configuration, Deployment, Service, PodDisruptionBudget, the authorizer's port, certificate and Service", () => {
    const text = manifests({
      config: example,
      namespace: 'garden',
      image: 'example.org/gardener-osc:v1',
      replicas: '2',
    });
    expectGolden('controller-manager/manifests.yaml', text);
    const config = parseYaml(configMapData(text)) as { applyMode: string; clusterSelector: unknown };
    const docs = text
      .split(/^---$/m)
      .map((d) => parseYaml(d) as { kind: string; metadata: { name: string }; spec?: unknown });
    const deployment = docs.find((d) => d.kind === 'Deployment') as unknown as {
      spec: {
        template: {
          spec: {
            containers: { ports: { name: string }[]; volumeMounts: { mountPath: string }[] }[];
            volumes: { name: string; secret?: { secretName: string } }[];
          };
        };
      };
    };
    const container = deployment.spec.template.spec.containers[0]!;
    expect(container.ports.map((p) => p.name)).to.include('authorizer');
    expect(container.volumeMounts.map((m) => m.mountPath)).to.include('/etc/gardener-osc-authorizer');
    expect(deployment.spec.template.spec.volumes.map((v) => v.secret?.secretName)).to.include(
      'gardener-osc-controller-manager-authorizer-tls',
    );
    expect(docs.filter((d) => d.kind === 'Service').map((d) => d.metadata.name)).to.include(
      'gardener-osc-controller-manager-authorizer',
    );
    expect(config.applyMode).to.equal('direct');
    expect(config.clusterSelector).to.deep.equal({
      matchLabels: { 'node-configuration.gardener.cloud/controller-manager': 'true' },
    });
  });

  it('writes a configuration that `controller-manager --check-config` accepts: Go durations, every default', () => {
    const text = manifests({ config: example, namespace: 'garden', image: 'x', replicas: '2' });
    const written = join(dir, 'written.yaml');
    writeFileSync(written, configMapData(text));
    const check = run('controller-manager', '--config', written, '--check-config');
    expect(check.status, check.stderr).to.equal(0);
    expect(check.stdout).to.equal(configMapData(text));
    expect(configMapData(text)).to.contain('syncPeriod: 1h0m0s').and.to.contain('leaseDuration: 15s');
    const bad = join(dir, 'bad-duration.yaml');
    writeFileSync(bad, configMapData(text).replace('leaseDuration: 15s', 'leaseDuration: 15000'));
    const rejected = run('controller-manager', '--config', bad, '--check-config');
    expect(rejected.status).to.equal(2);
    expect(rejected.stderr).to.contain('leaderElection.leaseDuration');
  });

  it('every generated configuration survives manifests: the pod reads back the same configuration', function () {
    // 150 configurations through the manifests and back: about 10 s alone, 30 s on a loaded machine
    this.timeout(120_000);
    const ms = fc.integer({ min: 0, max: 2 * 86_400_000 });
    const goDuration = (n: number) => formatGoDuration(n * 1e6);
    const document = fc.record(
      {
        clusterSelector: fc.record({
          matchLabels: fc.dictionary(
            fc.constantFrom('a', 'shoot.gardener.cloud/x', 'b_c'),
            fc.constantFrom('', 'true', 'v-1'),
            {
              minKeys: 1,
            },
          ),
        }),
        seedKubeconfig: fc.constant('/home/me/.kube/seed'),
        // per-node identities need the authorizer (seed/manager/check-config.ts)
        nodeAgent: fc.constantFrom(
          { identity: 'serviceAccount' },
          {
            authorizer: {
              port: 10443,
              certFile: '/tls/tls.crt',
              keyFile: '/tls/tls.key',
              tokenKeyFile: '/tls/token.key',
            },
          },
        ),
        applyMode: fc.constantFrom('managedResource', 'direct'),
        featureGates: fc.record({ UseGardenerNodeAgent: fc.boolean() }, { requiredKeys: [] }),
        nodeLogging: fc.boolean(),
        controllers: fc.record(
          {
            operatingSystemConfig: fc.record(
              {
                enabled: fc.boolean(),
                concurrentSyncs: fc.integer({ min: 1, max: 100 }),
                waitTimeout: ms.map(goDuration),
                syncPeriod: ms.map(goDuration),
              },
              { requiredKeys: [] },
            ),
            nodeDelay: fc.record(
              { enabled: fc.boolean(), minDelay: ms.map(goDuration) },
              { requiredKeys: [] },
            ),
            migration: fc.record({ checkInterval: ms.map(goDuration) }, { requiredKeys: [] }),
            osLocal: fc.record(
              {
                enabled: fc.boolean(),
                types: fc.array(fc.constantFrom('local', 'gardenlinux'), { minLength: 1 }),
              },
              { requiredKeys: [] },
            ),
          },
          { requiredKeys: [] },
        ),
        leaderElection: fc
          .tuple(fc.integer({ min: 1, max: 600_000 }), fc.integer({ min: 1, max: 600_000 }), fc.boolean())
          .map(([a, b, enabled]) => ({
            enabled,
            leaseDuration: goDuration(Math.max(a, b) + 1),
            renewDeadline: goDuration(Math.min(a, b)),
            retryPeriod: goDuration(Math.min(a, b)),
          })),
        server: fc.record(
          // any port but the health probes' (8081) and the authorizer's (10443)
          {
            metrics: fc.record({
              port: fc.integer({ min: 1, max: 65535 }).filter((p) => p !== 8081 && p !== 10443),
            }),
          },
          { requiredKeys: [] },
        ),
        logLevel: fc.constantFrom('debug', 'info', 'warn', 'error'),
        logFormat: fc.constantFrom('json', 'text'),
      },
      { requiredKeys: ['clusterSelector', 'nodeAgent'] },
    );
    const file = join(dir, 'generated.yaml');
    fc.assert(
      fc.property(document, (doc) => {
        const input = { apiVersion: CONTROLLER_MANAGER_API_VERSION, kind: CONTROLLER_MANAGER_KIND, ...doc };
        writeFileSync(file, stringifyYaml(input));
        const given = parseControllerManagerConfiguration(stringifyYaml(input));
        if (!given.ok) throw new Error(`generated an invalid configuration: ${JSON.stringify(given.errors)}`);
        const read = parseControllerManagerConfiguration(
          configMapData(manifests({ config: file, namespace: 'garden', image: 'x', replicas: '1' })),
        );
        if (!read.ok) throw new Error(JSON.stringify(read.errors));
        const { seedKubeconfig: _, ...expected } = given.value;
        expect(read.value).to.deep.equal(expected);
      }),
      { numRuns: 150, seed: 16 },
    );
  });

  it('--controller-registration prints a valid ControllerDeployment (Helm chart) and ControllerRegistration', () => {
    const options = {
      config: example,
      namespace: 'garden',
      image: 'example.org/gardener-osc:v1',
      replicas: '2',
      controllerRegistration: true,
    };
    // the example as it is: per-node identities with the authorizer (its chart serves it)
    const text = manifests(options);
    const docs = text.split(/^---$/m).map((d) => parseYaml(d) as Record<string, unknown>);
    expect(docs.map((d) => d.kind)).to.deep.equal(['ControllerDeployment', 'ControllerRegistration']);
    for (const d of docs) expect(validateGardenerCoreObject(d)).to.deep.equal([]);
    const spec = docs[1]!.spec as { resources: unknown[]; deployment: unknown };
    // the example enables os-local for gardenlinux and ubuntu
    expect(spec.resources).to.deep.equal([
      { kind: 'OperatingSystemConfig', type: 'gardenlinux' },
      { kind: 'OperatingSystemConfig', type: 'ubuntu' },
    ]);
    expect(spec.deployment).to.deep.equal({
      policy: 'AlwaysExceptNoShoots',
      deploymentRefs: [{ name: 'gardener-osc' }],
    });
    const values = (docs[0]!.providerConfig as { values: { image: string; config: unknown } }).values;
    expect(values.image).to.equal('example.org/gardener-osc:v1');
    expect(values.config).to.deep.equal(
      parseYaml(
        configMapData(manifests({ config: example, namespace: 'garden', image: 'x', replicas: '2' })),
      ),
    );
  });

  it('--helm-chart DIR writes the chart of the ControllerDeployment as files, the same as its archive', () => {
    const out = join(dir, 'chart');
    const options = {
      config: example,
      namespace: 'garden',
      image: 'example.org/gardener-osc:v1',
      replicas: '2',
    };
    const listed = manifests({ ...options, helmChart: out })
      .trim()
      .split('\n');
    expect(listed.map((p) => p.slice(out.length + 1)).sort()).to.deep.equal([
      'Chart.yaml',
      'templates/clusterrole.yaml',
      'templates/clusterrolebinding.yaml',
      'templates/configmap.yaml',
      'templates/deployment.yaml',
      'templates/poddisruptionbudget.yaml',
      'templates/service-authorizer.yaml',
      'templates/service.yaml',
      'templates/serviceaccount.yaml',
      'templates/verticalpodautoscaler.yaml',
      'values.yaml',
    ]);
    const deployment = parseYaml(
      manifests({ ...options, controllerRegistration: true }).split(/^---$/m)[0]!,
    ) as { providerConfig: { chart: string; values: unknown } };
    const archive = untar(gunzipSync(Buffer.from(deployment.providerConfig.chart, 'base64')));
    for (const path of listed) {
      const name = `gardener-osc-controller-manager/${path.slice(out.length + 1)}`;
      expect(readFileSync(path, 'utf8'), name).to.equal(archive.get(name)!.data.toString('utf8'));
    }
    expect(parseYaml(readFileSync(join(out, 'values.yaml'), 'utf8'))).to.deep.equal(
      deployment.providerConfig.values,
    );
  });

  it('prints the minimum shoot role for the configured apply mode', () => {
    const role = parseYaml(
      manifests({
        config: join(ROOT, 'examples/controller-manager.yaml'),
        namespace: 'garden',
        image: 'x',
        replicas: '1',
        shootRole: true,
      }),
    ) as { kind: string; rules: { verbs: string[] }[] };
    expect(role.kind).to.equal('ClusterRole');
    expect(role.rules.flatMap((r) => r.verbs)).to.include('escalate');
  });

  it('prints what a shoot kube-apiserver needs to ask the authorizer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'manifests-'));
    try {
      const ca = join(dir, 'ca.crt');
      writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n');
      const tokenKey = join(dir, 'token.key');
      writeFileSync(tokenKey, `${'k'.repeat(40)}\n`);
      const options = {
        config: join(ROOT, 'examples/controller-manager.yaml'),
        namespace: 'garden',
        image: 'x',
        replicas: '1',
        shootAuthorization: 'shoot--dev--demo',
        authorizerCa: ca,
        authorizerTokenKey: tokenKey,
      };
      const [config, kubeconfig] = manifests(options)
        .split(/^---$/m)
        .map((d) => parseYaml(d) as Record<string, unknown>);
      expect(config).to.deep.include({ kind: 'AuthorizationConfiguration' });
      expect(JSON.stringify(config))
        .to.contain('"failurePolicy":"Deny"')
        .and.to.contain("'gardener.cloud:node-agents' in request.groups");
      expect(JSON.stringify(kubeconfig)).to.contain(
        'https://gardener-osc-controller-manager-authorizer.garden.svc/webhooks/auth/nodeagent/shoot--dev--demo',
      );
      expect(() => manifests({ ...options, authorizerCa: undefined })).to.throw(/--authorizer-ca/);
      // the shoot's kube-apiserver authenticates with its own token, derived from the key
      const user = (kubeconfig as { users: { user: { token?: string } }[] }).users[0]?.user;
      expect(user?.token).to.equal(authorizerCallerToken(Buffer.from('k'.repeat(40)), 'shoot--dev--demo'));
      expect(() => manifests({ ...options, authorizerTokenKey: undefined })).to.throw(
        /--authorizer-token-key FILE/,
      );
      writeFileSync(tokenKey, 'short\n');
      expect(() => manifests(options)).to.throw(/--authorizer-token-key: .*at least 32 characters/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
