/**
 * `render --output DIR` and `render --decode` as a CI author snapshot-testing renders uses them: the
 * directory is always exactly the current render (files no longer rendered are removed, a
 * directory with files of someone else is refused), the review form decodes base64 and keeps file
 * names stable across changes, and every write path ends with an error instead of spinning.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { stringifyYaml } from '../../api/index.js';
import { stableName } from '../../cli/render-decode.js';
import { OUTPUT_MANIFEST } from '../../runtime/cli/output-directory.js';
import { expectGolden } from '../golden.js';
import { example, gpuMaxPods, values } from './plan-fixtures.js';
import { runMain } from './run-main.js';

const CLI = join(import.meta.dirname, '../../cli/main.ts');

describe('gardener-osc render --output and --decode', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'render-output-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, stringifyYaml(content));
    return path;
  };
  const objectFiles = (out: string) =>
    readdirSync(out)
      .filter((f) => f !== OUTPUT_MANIFEST)
      .sort();

  it('removes the files of objects no longer rendered and lists what it removed', async () => {
    const out = join(dir, 'out');
    const valuesPath = file('values.yaml', values());
    expect(
      (
        await runMain([
          'render',
          '--cluster',
          file('a.yaml', example()),
          '--values',
          valuesPath,
          '--output',
          out,
        ])
      ).code,
    ).to.equal(0);
    const before = objectFiles(out);
    expect(before.filter((f) => f.includes('arm-worker'))).to.have.length(3);
    const smaller = example();
    smaller.spec.shoot.spec.provider.workers = smaller.spec.shoot.spec.provider.workers.filter(
      (w) => w.name !== 'arm-worker',
    );
    const r = await runMain([
      'render',
      '--cluster',
      file('b.yaml', smaller),
      '--values',
      valuesPath,
      '--output',
      out,
    ]);
    expect(r.code).to.equal(0);
    const after = objectFiles(out);
    const gone = before.filter((f) => !after.includes(f));
    expect(gone.filter((f) => f.includes('arm-worker'))).to.have.length(3);
    for (const f of gone)
      expect(r.stderr).to.contain(`gardener-osc: removed ${join(out, f)} (no longer rendered)\n`);
    expect(r.stderr).to.match(
      new RegExp(`wrote ${after.length} files to ${out}, removed ${gone.length}\\n$`),
    );
    expect(readFileSync(join(out, OUTPUT_MANIFEST), 'utf8').split('\n').slice(1, -1)).to.deep.equal(after);
  });

  it('refuses a directory holding files it did not write, and writes nothing there', async () => {
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const r = await runMain(['render', '--output', dir]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.equal(
      `gardener-osc: --output ${dir}: the directory holds files gardener-osc did not write (notes.txt); name a new or empty directory, or one an earlier --output wrote\n`,
    );
    expect(readdirSync(dir)).to.deep.equal(['notes.txt']);
  });

  it('--output under /proc ends with one error line for render and crds (the recursive mkdir spun forever)', () => {
    for (const argv of [
      ['render', '--output', '/proc/gardener-osc-x'],
      ['crds', '--output', '/proc/gardener-osc-x/y'],
    ]) {
      // a child process, so a spinning mkdir fails this test instead of hanging the run
      const child = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...argv], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(child.signal, argv.join(' ')).to.equal(null);
      expect(child.status, argv.join(' ')).to.equal(1);
      expect(child.stderr).to.match(
        /gardener-osc: cannot create the directory \/proc\/gardener-osc-x: no such file or directory \(ENOENT\)\n$/,
      );
    }
  });

  it('--decode shows file and secret contents decoded, as reviewed (golden file)', async () => {
    const r = await runMain(['render', '--decode']);
    expect(r.code).to.equal(0);
    expect(r.stdout).to.not.match(/encoding: b64/);
    expectGolden('render/example-seed-decoded.yaml', r.stdout);
  });

  it('--decode --output keeps every file name when a pool changes; without it the checksum names move', async () => {
    const valuesPath = file('values.yaml', values());
    const renderTo = async (out: string, cluster: unknown, ...flags: string[]) => {
      const r = await runMain([
        'render',
        '--cluster',
        file(`${out}.yaml`, cluster),
        '--values',
        valuesPath,
        '--output',
        join(dir, out),
        ...flags,
      ]);
      expect(r.code, r.stderr).to.equal(0);
      return objectFiles(join(dir, out));
    };
    const decodedA = await renderTo('decoded-a', example(), '--decode');
    const decodedB = await renderTo('decoded-b', gpuMaxPods(), '--decode');
    expect(decodedB).to.deep.equal(decodedA);
    expect(decodedA).to.include(
      'secret_shoot--dev--demo_managedresource-shoot-gardener-node-agent-gpu-worker.yaml',
    );
    const plainA = await renderTo('plain-a', example());
    const plainB = await renderTo('plain-b', gpuMaxPods());
    expect(plainB).to.not.deep.equal(plainA);
    const changed = readFileSync(
      join(
        dir,
        'decoded-b',
        'secret_shoot--dev--demo_managedresource-shoot-gardener-node-agent-gpu-worker.yaml',
      ),
      'utf8',
    );
    expect(changed).to.contain('\n                  maxPods: 74\n');
  });

  it('stable names drop the pool key hash and the checksum suffix only', () => {
    expect(stableName('gardener-node-agent-cpu-worker-46fed-gardenlinux-init')).to.equal(
      'gardener-node-agent-cpu-worker-gardenlinux-init',
    );
    expect(stableName('managedresource-shoot-gardener-node-agent-rbac-e67c29e5')).to.equal(
      'managedresource-shoot-gardener-node-agent-rbac',
    );
    // the v1.150.0 key is 16 hex digits
    expect(stableName('gardener-node-agent-cpu-worker-65ff4f8a02aee73f-original')).to.equal(
      'gardener-node-agent-cpu-worker-original',
    );
    expect(stableName('shoot-access-valitail')).to.equal('shoot-access-valitail');
    expect(stableName('worker-12-abcde')).to.equal('worker-12-abcde');
  });

  it('--decode with -o json is a usage error', async () => {
    const r = await runMain(['render', '--decode', '-o', 'json']);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.equal(
      'gardener-osc: --decode shows contents as YAML block text; it cannot be combined with -o json\n',
    );
  });
});
