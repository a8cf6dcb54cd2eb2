import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { parseYaml, stringifyYaml } from '../../api/index.js';
import { DEFAULT_NOW, parseFeatureGates, render } from '../../cli/render-command.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { expectGolden } from '../golden.js';
import { decodedView } from '../support/decoded-view.js';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../cli/main.ts');
const EXAMPLE = join(import.meta.dirname, '../../examples/cluster.yaml');

async function osc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', CLI, ...args], {
      maxBuffer: 1 << 26,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

const objects = (options: Partial<Parameters<typeof render>[0]> = {}) =>
  render({ target: 'seed', now: DEFAULT_NOW, ...options }).objects;

const bytes = (options: Partial<Parameters<typeof render>[0]> = {}) =>
  objects(options)
    .map((o) => stringifyYaml(o))
    .join('---\n');

interface ExampleCluster {
  spec: {
    shoot: {
      spec: {
        kubernetes: { version: string };
        provider: { workers: { kubernetes?: { version?: string }; kubeletDataVolumeName?: string }[] };
      };
    };
  };
}

/** The same document with every mapping's keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversedKeys(v)]),
  );
}

describe('gardener-osc render', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'render-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const golden = (name: string, options: Partial<Parameters<typeof render>[0]> = {}) =>
    expectGolden(name, bytes(options) + decodedView(objects(options)));

  it('renders the example for the seed and the shoot as reviewed (golden files: the bytes, then decoded)', () => {
    golden('render/example-seed-node-identity.yaml');
    golden('render/example-shoot-node-identity.yaml', { target: 'shoot' });
  });

  it('renders exactly what v1.91 renders with the shared ServiceAccount (golden files, unchanged)', () => {
    const v191 = { nodeAgentIdentity: 'serviceAccount' };
    golden('render/example-seed.yaml', v191);
    golden('render/example-shoot.yaml', { ...v191, target: 'shoot' });
    golden('render/example-seed-gate-off.yaml', { ...v191, featureGates: 'UseGardenerNodeAgent=false' });
  });

  it('with per-node identities differs from v1.91 only where the identity is concerned', () => {
    const lines = (text: string) => new Set(text.split('\n'));
    const node = lines(bytes({ target: 'shoot' }));
    const shared = lines(bytes({ target: 'shoot', nodeAgentIdentity: 'serviceAccount' }));
    // the OSC secrets carry the agent's config, so they differ; the RBAC is what changes besides
    expect([...node].some((l) => l.includes('ValidatingAdmissionPolicy'))).to.equal(true);
    expect([...shared].some((l) => l.includes('ValidatingAdmissionPolicy'))).to.equal(false);
    expect([...node].some((l) => l === 'kind: Role')).to.equal(false);
    expect(bytes({ nodeAgentIdentity: 'serviceAccount' })).to.contain(
      'name: shoot-access-gardener-node-agent',
    );
    expect(bytes()).not.to.contain('name: shoot-access-gardener-node-agent');
    expect(() => bytes({ nodeAgentIdentity: 'both' })).to.throw(
      /--node-agent-identity must be node or serviceAccount/,
    );
  });

  it('is deterministic: twice, and with every input map in another order, the same bytes', () => {
    const first = bytes();
    expect(bytes()).to.equal(first);
    const shuffled = join(dir, 'cluster.yaml');
    writeFileSync(shuffled, stringifyYaml(reversedKeys(parseYaml(readFileSync(EXAMPLE, 'utf8')))));
    const values = join(import.meta.dirname, '../../examples/values.yaml');
    expect(bytes({ cluster: shuffled, values })).to.equal(first);
  });

  it('writes the timestamp given by --now, and only there', () => {
    const later = bytes({ now: '2025-02-03T04:05:06.5Z' });
    expect(later).to.contain('gardener.cloud/timestamp: "2025-02-03T04:05:06.5Z"');
    const strip = (s: string) => s.replaceAll(/gardener.cloud\/timestamp: .*/g, '');
    expect(strip(later)).to.equal(strip(bytes()));
  });

  it('rejects unknown feature gates and values', () => {
    expect(parseFeatureGates('UseGardenerNodeAgent=false')).to.deep.equal({ useGardenerNodeAgent: false });
    expect(() => parseFeatureGates('Foo=true')).to.throw('unknown feature gate "Foo"');
    expect(() => parseFeatureGates('UseGardenerNodeAgent=yes')).to.throw('must be true or false');
  });

  it('exits 2 listing every error with its field path, writing nothing', async () => {
    const cluster = parseYaml(readFileSync(EXAMPLE, 'utf8')) as ExampleCluster;
    cluster.spec.shoot.spec.kubernetes.version = '1.24.3';
    cluster.spec.shoot.spec.provider.workers[1]!.kubernetes = { version: 'one.two' };
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, stringifyYaml(cluster));
    const out = join(dir, 'out');
    const r = await osc('render', '--cluster', bad, '--output', out);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.contain('spec.shoot.spec.kubernetes.version: Invalid value: "1.24.3"');
    expect(r.stderr).to.contain('spec.shoot.spec.provider.workers[1].kubernetes.version');
    expect(() => readdirSync(out)).to.throw();
  });

  it('exits 2 for unparsable YAML, a missing data volume, or an unknown gate', async () => {
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'spec: [\n');
    expect((await osc('render', '--cluster', broken)).code).to.equal(2);
    const cluster = parseYaml(readFileSync(EXAMPLE, 'utf8')) as ExampleCluster;
    cluster.spec.shoot.spec.provider.workers[0]!.kubeletDataVolumeName = 'nope';
    const noVolume = join(dir, 'novolume.yaml');
    writeFileSync(noVolume, stringifyYaml(cluster));
    const r = await osc('render', '--cluster', noVolume);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.contain('failed finding data volume for kubelet in worker with name "cpu-worker"');
    expect((await osc('render', '--feature-gates', 'Nope=true')).code).to.equal(2);
  });

  describe("rejects what Gardener's Shoot validation or the rendered objects would, naming the field", () => {
    type Fields = Record<string, unknown>;
    type Mutable = {
      spec: { shoot: { spec: { kubernetes: Fields; provider: { workers: (Fields & { name: string })[] } } } };
    };
    const w = (c: Mutable, i = 0) => c.spec.shoot.spec.provider.workers[i]!;
    const cases: [string, (c: Mutable) => void, string][] = [
      [
        'a 70-character pool name',
        (c) => (w(c).name = 'p'.repeat(70)),
        'spec.shoot.spec.provider.workers[0].name: Invalid value: "pppp',
      ],
      [
        'a pool name longer than 15',
        (c) => (w(c).name = 'a-long-pool-name'),
        'may not be more than 15 bytes',
      ],
      [
        'an upper-case pool name',
        (c) => (w(c).name = 'Cpu_Worker'),
        'workers[0].name: Invalid value: "Cpu_Worker": a lowercase RFC 1123 label',
      ],
      ['a non-ASCII pool name', (c) => (w(c).name = 'wörker'), 'workers[0].name: Invalid value: "wörker"'],
      ['duplicate pool names', (c) => (w(c, 1).name = w(c, 0).name), 'workers[1].name: Duplicate value'],
      [
        'minimum above maximum',
        (c) => Object.assign(w(c), { minimum: 5, maximum: 2 }),
        'workers[0].maximum: Forbidden: maximum value must not be less than minimum value',
      ],
      [
        'a negative maxPods',
        (c) => (w(c).kubernetes = { ...(w(c).kubernetes as Fields), kubelet: { maxPods: -1 } }),
        'workers[0].kubernetes.kubelet.maxPods: Invalid value: -1',
      ],
      [
        'a negative maxPods of the shoot',
        (c) => (c.spec.shoot.spec.kubernetes.kubelet = { maxPods: -3 }),
        'spec.shoot.spec.kubernetes.kubelet.maxPods',
      ],
      [
        'an invalid taint effect',
        (c) => (w(c).taints = [{ key: 'k', value: 'v', effect: 'NoWay' }]),
        'workers[0].taints[0].effect: Unsupported value: "NoWay"',
      ],
      [
        'an invalid label value',
        (c) => (w(c).labels = { ok: 'not ok!' }),
        'workers[0].labels: Invalid value: "not ok!"',
      ],
      [
        'a sysctl value with a newline',
        (c) => (w(c).sysctls = { 'net.a': '1\nnet.b = 2' }),
        'workers[0].sysctls[net.a]: Invalid value',
      ],
    ];
    for (const [what, mutate, message] of cases) {
      it(what, () => {
        const cluster = parseYaml(readFileSync(EXAMPLE, 'utf8')) as Mutable;
        mutate(cluster);
        const file = join(dir, 'cluster.yaml');
        writeFileSync(file, stringifyYaml(cluster));
        expect(() => render({ target: 'seed', now: DEFAULT_NOW, cluster: file }))
          .to.throw(UsageError)
          .with.property('message')
          .that.contains(message);
      });
    }

    it('a sysctl with a newline exits 2 without a stack trace', async () => {
      const cluster = parseYaml(readFileSync(EXAMPLE, 'utf8')) as Mutable;
      w(cluster).sysctls = { 'net.a': '1\nnet.b = 2' };
      const file = join(dir, 'cluster.yaml');
      writeFileSync(file, stringifyYaml(cluster));
      const r = await osc('render', '--cluster', file);
      expect(r.code).to.equal(2);
      expect(r.stderr).to.contain('spec.shoot.spec.provider.workers[0].sysctls[net.a]');
      expect(r.stderr).to.not.contain('    at ');
    });
  });

  it('--output writes one file per object', async () => {
    const r = await osc('render', '--output', dir, '--target', 'shoot');
    expect(r.code).to.equal(0);
    expect(readdirSync(dir)).to.include.members([
      'secret_kube-system_gardener-node-agent-cpu-worker-46fed.yaml',
      'validatingadmissionpolicy_gardener-node-agent.yaml',
    ]);
  });
});
