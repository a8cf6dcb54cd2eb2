/**
 * Configurations whose fields are each valid but cannot work together (seed/manager/check-config.ts),
 * and the flags of `manifests` that end up in objects (cli/manifests-options.ts): `controller-manager
 * --check-config` refuses every configuration `manifests` or the process would fail on, and neither
 * prints a stack trace: exit 2, the field named.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { stringifyYaml } from '../../api/index.js';
import { checkControllerManagerConfiguration } from '../../cli/controller-manager-command.js';
import { manifests } from '../../cli/manifests-command.js';
import { imageReferenceProblems } from '../../cli/manifests-options.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import {
  CONTROLLER_MANAGER_API_VERSION,
  CONTROLLER_MANAGER_KIND,
  type ControllerManagerConfiguration,
  decodeControllerManagerConfiguration,
} from '../../seed/manager/config.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'cli/main.ts'), ...args], {
    encoding: 'utf8',
    cwd: ROOT,
    env: { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' },
  });

const document = (extra: Record<string, unknown>) => ({
  apiVersion: CONTROLLER_MANAGER_API_VERSION,
  kind: CONTROLLER_MANAGER_KIND,
  clusterSelector: { matchLabels: { a: 'b' } },
  ...extra,
});
const AUTHORIZER = {
  port: 10443,
  certFile: '/tls/tls.crt',
  keyFile: '/tls/tls.key',
  tokenKeyFile: '/tls/token.key',
};

function decode(extra: Record<string, unknown>): ControllerManagerConfiguration {
  const decoded = decodeControllerManagerConfiguration(document(extra));
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
  return decoded.value;
}

/** A stack trace line as node prints them. */
const STACK = /^\s+at /m;

describe('controller-manager configuration checks (--check-config, the process, manifests)', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'osc-cm-check-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, extra: Record<string, unknown>) => {
    const path = join(dir, name);
    writeFileSync(path, stringifyYaml(document(extra)));
    return path;
  };

  it('identity node without an authorizer: --check-config and the process exit 2 naming nodeAgent.authorizer', () => {
    const path = file('no-authorizer.yaml', {});
    for (const args of [['--check-config'], ['--health-port', '0', '--metrics-port', '0']]) {
      const r = run('controller-manager', '--config', path, ...args);
      expect(r.status, r.stderr).to.equal(2);
      expect(r.stderr).to.contain(
        'nodeAgent.authorizer: Required value: required with nodeAgent.identity node',
      );
      expect(r.stdout).to.equal('');
    }
    // v1.91's shared identity needs none
    const v191 = run(
      'controller-manager',
      '--config',
      file('v191.yaml', { nodeAgent: { identity: 'serviceAccount' } }),
      '--check-config',
    );
    expect(v191.status, v191.stderr).to.equal(0);
  });

  it('colliding ports: --check-config exits 2 naming both fields; manifests too, without a stack trace', () => {
    const path = file('collide.yaml', {
      server: { metrics: { port: 8081 } },
      nodeAgent: { authorizer: { ...AUTHORIZER, port: 8081 } },
    });
    const check = run('controller-manager', '--config', path, '--check-config');
    expect(check.status).to.equal(2);
    expect(check.stderr).to.contain(
      'server.metrics.port: Duplicate value: 8081: port 8081 is also server.healthProbes.port',
    );
    expect(check.stderr).to.contain(
      'nodeAgent.authorizer.port: Duplicate value: 8081: port 8081 is also server.healthProbes.port',
    );
    const printed = run('manifests', '--config', path);
    expect(printed.status).to.equal(2);
    expect(printed.stderr).to.contain('server.metrics.port: Duplicate value: 8081');
    expect(printed.stderr).not.to.match(STACK);
    expect(printed.stdout).to.equal('');
  });

  it('a --health-port that collides with the configured metrics port: the process exits 2 before it starts', () => {
    const path = file('flag-collide.yaml', { nodeAgent: { identity: 'serviceAccount' } });
    const r = run('controller-manager', '--config', path, '--health-port', '8080');
    expect(r.status).to.equal(2);
    expect(r.stderr).to.contain(
      'server.metrics.port: Duplicate value: 8080: port 8080 is also server.healthProbes.port',
    );
  });

  it('manifests: an invalid --namespace or --image exits 2 naming the flag, without a stack trace', () => {
    const example = join(ROOT, 'examples/controller-manager.yaml');
    const r = run(
      'manifests',
      '--config',
      example,
      '--namespace',
      'Bad_NS',
      '--image',
      'Registry.example.org/OSC:v1',
    );
    expect(r.status).to.equal(2);
    expect(r.stderr).to.contain('--namespace: Invalid value: "Bad_NS"');
    expect(r.stderr).to.contain('--image: Invalid value: "Registry.example.org/OSC:v1"');
    expect(r.stderr).not.to.match(STACK);
    expect(r.stdout).to.equal('');
  });

  it('reads image references as the distribution reference grammar does', () => {
    for (const good of [
      'x',
      'gardener-osc:v0.1.0',
      'europe-docker.pkg.dev/gardener-project/releases/gardener-osc:v0.1.0',
      'localhost:5000/osc@sha256:' + 'ab'.repeat(32),
      'registry.example.org/a/b__c/d-e:tag_1.2-x',
    ])
      expect(imageReferenceProblems(good), good).to.deep.equal([]);
    for (const bad of ['', ' x', 'x/UPPER', 'x:', 'x:-tag', 'a//b', 'x@sha256:short', 'https://r.example/x'])
      expect(imageReferenceProblems(bad), bad).to.have.length(1);
  });

  it('refuses inV150Mode on for a controller that does not run, naming the field', () => {
    const problems = (extra: Record<string, unknown>) => {
      try {
        checkControllerManagerConfiguration('config.yaml', decode(extra));
        return '';
      } catch (e) {
        expect(e).to.be.instanceOf(UsageError);
        return (e as Error).message;
      }
    };
    const authorized = { nodeAgent: { authorizer: AUTHORIZER } };
    expect(
      problems({ ...authorized, controllers: { nodeDelay: { enabled: false, inV150Mode: true } } }),
    ).to.contain('controllers.nodeDelay.inV150Mode: Invalid value: true: the node-delay controller is off');
    const shared = problems({
      nodeAgent: { identity: 'serviceAccount' },
      controllers: { nodeAgentCsrApprover: { inV150Mode: true }, nodeAgentAuthorizer: { inV150Mode: true } },
    });
    expect(shared).to.contain(
      'controllers.nodeAgentCsrApprover.inV150Mode: Invalid value: true: runs only with nodeAgent.identity node',
    );
    expect(shared).to.contain('controllers.nodeAgentAuthorizer.inV150Mode: Invalid value: true');
    expect(
      problems({
        ...authorized,
        controllers: {
          nodeDelay: { inV150Mode: true },
          nodeAgentCsrApprover: { inV150Mode: true },
          nodeAgentAuthorizer: { inV150Mode: true },
        },
      }),
    ).to.equal('');
  });

  it('every configuration --check-config accepts, manifests renders; every other one both refuse naming a field', () => {
    const port = fc.constantFrom(0, 8080, 8081, 10443, 9443);
    const generated = fc.record({
      identity: fc.constantFrom('node', 'serviceAccount'),
      authorizer: fc.option(
        fc.record({
          port,
          certFile: fc.constantFrom('/tls/tls.crt', '/other/tls.crt'),
          keyFile: fc.constantFrom('/tls/tls.key'),
          tokenKeyFile: fc.constantFrom('/tls/token.key', '/other/token.key'),
        }),
        { nil: undefined },
      ),
      metrics: port,
      health: port,
      registration: fc.boolean(),
    });
    fc.assert(
      fc.property(generated, (g) => {
        const config = decode({
          nodeAgent: { identity: g.identity, ...(g.authorizer ? { authorizer: g.authorizer } : {}) },
          server: { metrics: { port: g.metrics }, healthProbes: { port: g.health } },
        });
        let checked: string | undefined;
        try {
          checkControllerManagerConfiguration('config.yaml', config, { forPod: true });
        } catch (e) {
          expect(e).to.be.instanceOf(UsageError);
          checked = (e as Error).message;
        }
        let printed: string | undefined;
        try {
          manifests(
            {
              config: 'config.yaml',
              namespace: 'garden',
              image: 'x',
              replicas: '2',
              controllerRegistration: g.registration,
            },
            () => config,
          );
        } catch (e) {
          expect(e, (e as Error).stack).to.be.instanceOf(UsageError);
          printed = (e as Error).message;
        }
        expect(printed).to.equal(checked);
        if (checked) expect(checked).to.match(/^ {2}- (nodeAgent|server)\.[\w.]+: /m);
      }),
      { numRuns: 200, seed: 4 },
    );
  });
});
