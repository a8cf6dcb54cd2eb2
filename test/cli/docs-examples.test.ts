/**
 * What the README and docs/ show is what the package does: every example file they name is shipped,
 * the plan they show comes from the shipped files, and docs/plan.md's JSON is the golden snapshot.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { GOLDEN_DIR } from '../golden.js';
import { runMain } from './run-main.js';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('README and docs: the examples they show', function () {
  this.timeout(120_000);

  it('every examples/ file they name exists (and examples/ is in the package)', () => {
    const named = new Set(DOCS.flatMap((doc) => read(doc).match(/examples\/[\w.-]+\.yaml/g) ?? []));
    expect([...named]).to.include('examples/cluster-new.yaml');
    for (const path of named) expect(existsSync(join(ROOT, path)), path).to.equal(true);
    expect((JSON.parse(read('package.json')) as { files: string[] }).files).to.include('examples/');
  });

  it("the plan they show is the shipped examples' plan", async () => {
    const argv = [
      'plan',
      '--cluster',
      'examples/cluster.yaml',
      '--next',
      'examples/cluster-new.yaml',
      '--values',
      'examples/values.yaml',
    ];
    for (const doc of ['README.md', 'docs/plan.md'])
      expect(read(doc), doc).to.contain(`$ gardener-osc ${argv.join(' ')}`);
    const r = await runMain(argv.map((a) => (a.startsWith('examples/') ? join(ROOT, a) : a)));
    expect(r.code).to.equal(0);
    expect(r.stdout).to.equal(readFileSync(join(GOLDEN_DIR, 'plan/kubelet-change-defaults.txt'), 'utf8'));
  });

  it("docs/plan.md's JSON example is the golden snapshot of that plan", () => {
    const block = /```json\n([\s\S]*?)```/.exec(read('docs/plan.md'))?.[1];
    expect(block).to.equal(readFileSync(join(GOLDEN_DIR, 'plan/kubelet-change-defaults.json'), 'utf8'));
  });
});

describe("docs/controller-manager.md's deployment modes", function () {
  this.timeout(60_000);

  it('each configuration example passes `controller-manager --check-config`', async () => {
    const doc = read('docs/controller-manager.md');
    const examples = [...doc.matchAll(/<!-- check-config: ([\w-]+) -->\n```yaml\n([\s\S]*?)```/g)];
    expect(examples.map((m) => m[1])).to.deep.equal(['standalone', 'beside-gardenlet']);
    const dir = mkdtempSync(join(tmpdir(), 'osc-docs-config-'));
    try {
      for (const [, name, text] of examples) {
        const file = join(dir, `${name}.yaml`);
        writeFileSync(file, text!);
        const r = await runMain(['controller-manager', '--config', file, '--check-config']);
        expect(r.code, `${name}: ${r.stderr}`).to.equal(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('gardener-osc controller-manager --help', () => {
  it('names every controller the controller-manager runs (one folder of controllers/ each)', async () => {
    const help = (await runMain(['controller-manager', '--help'])).stdout.replace(/\s+/g, ' ');
    const controllers = readdirSync(join(ROOT, 'controllers'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(controllers).to.have.length(9);
    for (const name of controllers) expect(help, name).to.contain(name);
  });
});
