/**
 * Every benchmark script of hack/bench/ (but those NOT_IN_NPM_TEST names, with why) is run end to
 * end at its `--quick` size by some test (`runQuickBench('<script>', …)` or a `script: '<script>'`
 * of `startQuickBenches`, the ones that need API servers in the integration suite), and
 * says in `--help` how long a run takes: a benchmark nobody runs rots unnoticed.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';

const ROOT = join(import.meta.dirname, '../../..');
const BENCH = join(ROOT, 'hack/bench');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
}

const scripts = readdirSync(BENCH).filter((f) => f.endsWith('.ts'));

/**
 * Benchmarks no test runs, and why: each needs a cold build that `npm test` does not make (its CI
 * time is at its limit). Their `--help` is still checked below.
 */
const NOT_IN_NPM_TEST: Readonly<Record<string, string>> = {
  'upstream-node-agent.ts':
    "upstream's gardener-node-agents v1.91.4 and v1.150.0 from their Go modules (~3 and ~7 CPU-min cold), on real nodes",
};

interface Help {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `--help` of a benchmark (a tsx start each: the suite asks all of them at once). */
function help(script: string): Promise<Help> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(BENCH, script), '--help'],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' } },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('every benchmark in hack/bench', () => {
  let helps: Map<string, Promise<Help>>;
  before(() => {
    helps = new Map(scripts.map((script) => [script, help(script)]));
  });

  it('is run at its --quick size by a test', () => {
    const run = new Map<string, string>();
    for (const file of testFiles(join(ROOT, 'test')))
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:runQuickBench\(\s*|script: )'([\w.-]+\.ts)'/g))
        run.set(m[1]!, relative(ROOT, file));
    expect(scripts.length).to.be.greaterThan(5);
    expect(
      scripts.filter((s) => !run.has(s) && !(s in NOT_IN_NPM_TEST)),
      'benchmarks no test runs',
    ).to.deep.equal([]);
    expect(
      Object.keys(NOT_IN_NPM_TEST).filter((s) => !scripts.includes(s) || run.has(s)),
      'exempt benchmarks that are gone or run by a test after all',
    ).to.deep.equal([]);
    expect(
      [...run.keys()].filter((s) => !scripts.includes(s)),
      'tests of missing benchmarks',
    ).to.deep.equal([]);
  });

  for (const script of scripts) {
    it(`${script} --help names its options, --quick and how long a run takes`, async function () {
      this.timeout(120_000);
      const r = await helps.get(script)!;
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stdout).to.match(
        new RegExp(`^usage: npx tsx hack/bench/${script.replace('.', '\\.')} .*\\[--quick\\]$`, 'm'),
      );
      expect(r.stdout).to.match(/\b(seconds|minutes?)\b/);
    });
  }
});
