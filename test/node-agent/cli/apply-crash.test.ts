/**
 * The real `apply` process SIGKILLed right after its k-th systemd call (for every k), then run again:
 * the second run resumes, only the call in flight at the kill appears twice, and the tree ends up
 * as after an uninterrupted apply.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { KILL_AFTER_SYSTEMD_OPS_ENV } from '../../../node-agent/cli/apply-command.js';
import { writeImages } from '../support/apply-fixture.js';
import { runCli, spawnCli } from '../support/cli-run.js';
import { snapshotTree, useTempDirs } from '../support/harness.js';
import { IMAGE_FILES, oscV1, oscV2, yamlOf } from '../support/ntv18-fixtures.js';

describe('node-agent CLI: apply killed after every systemd call', function () {
  this.timeout(180_000);
  const tempDir = useTempDirs();

  it('resumes without repeating finished calls and ends in the uninterrupted tree', async () => {
    const dir = tempDir('gna-crash-');
    const images = writeImages(join(dir, 'images'), IMAGE_FILES);
    const v1 = join(dir, 'v1.yaml');
    const v2 = join(dir, 'v2.yaml');
    writeFileSync(v1, yamlOf(oscV1()));
    writeFileSync(v2, yamlOf(oscV2()));
    const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

    const prepare = async (name: string) => {
      const root = join(dir, name);
      mkdirSync(root);
      const setup = ['--root', root, '--images', images, `--systemd=record:${join(dir, `${name}-v1.jsonl`)}`];
      expect((await runCli(['apply', '--osc', v1, ...setup])).code).to.equal(0);
      return { root, args: ['apply', '--osc', v2, '--root', root, '--images', images] };
    };

    const clean = await prepare('clean');
    const cleanRecord = join(dir, 'clean.jsonl');
    expect((await runCli([...clean.args, `--systemd=record:${cleanRecord}`])).code).to.equal(0);
    const expected = lines(cleanRecord);
    const expectedTree = snapshotTree(clean.root);
    expect(expected).to.have.length(17);

    const runK = async (k: number) => {
      const { root, args } = await prepare(`k${k}`);
      const record = join(dir, `k${k}.jsonl`);
      const killed = await spawnCli([...args, `--systemd=record:${record}`, '--log-level', 'error'], {
        [KILL_AFTER_SYSTEMD_OPS_ENV]: String(k),
      });
      expect(killed.signal, `k=${k}: ${killed.stderr}`).to.equal('SIGKILL');
      expect(lines(record), `k=${k}`).to.deep.equal(expected.slice(0, k));

      const resumed = await runCli([...args, `--systemd=record:${record}`]);
      expect(resumed.code, `k=${k}: ${resumed.stderr}`).to.equal(0);
      expect(resumed.stdout).to.contain('resumed: true');
      expect(lines(record), `k=${k}`).to.deep.equal([...expected.slice(0, k), ...expected.slice(k - 1)]);
      expect(snapshotTree(root), `k=${k}`).to.deep.equal(expectedTree);
    };

    const ks = expected.map((_, i) => i + 1);
    for (let i = 0; i < ks.length; i += 2) await Promise.all(ks.slice(i, i + 2).map(runK));
  });
});
