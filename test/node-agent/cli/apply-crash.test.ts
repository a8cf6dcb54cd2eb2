/**
 * The real `apply` process SIGKILLed in the middle of every systemd call, then run again. Two kill
 * points per call: right after systemd carried it out (the call took effect, the agent never
 * learned it) and right before (the call was in flight and never reached systemd). Either way the
 * resumed run asks systemd whether the call took effect: no restart or stop ever runs twice or is
 * lost, an enable, disable or daemon-reload may repeat once, and the tree ends up as after an
 * uninterrupted apply, without the staged copy of the file the update takes from an image.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1, oscV2, yamlOf } from '../../../hack/landscape/ntv18-fixtures.js';
import {
  KILL_AFTER_SYSTEMD_OPS_ENV,
  KILL_BEFORE_SYSTEMD_OPS_ENV,
} from '../../../hack/node-agent-doubles/double-backends.js';
import { parseRecording } from '../../../hack/node-agent-doubles/recording-systemd.js';
import { runCli, spawnCli } from '../support/cli-run.js';
import { snapshotTree, useTempDirs } from '../support/harness.js';
import { equalButOneIdempotentRepeat, isUnitCommand, withoutNoOpStops } from '../support/systemd-effects.js';

/** The records of `actual` that repeat the one right before them. */
function repeats(actual: readonly string[]): string[] {
  return actual.filter((line, i) => i > 0 && line === actual[i - 1]);
}

/** A recording as `restart x.service` lines: one record per root, so systemd's state carries over. */
function opsOf(file: string): string[] {
  return parseRecording(readFileSync(file, 'utf8')).map((op) =>
    'unit' in op ? `${op.op} ${op.unit}` : op.op,
  );
}

describe('node-agent CLI: apply killed in the middle of every systemd call', function () {
  this.timeout(300_000);
  const tempDir = useTempDirs();

  it('resumes without repeating or losing a restart or stop, and ends in the uninterrupted tree', async () => {
    const dir = tempDir('gna-crash-');
    const images = writeImages(join(dir, 'images'), {
      ...IMAGE_FILES,
      'foo-image:2': { '/foo-file': 'file3 v2' },
    });
    const v1 = join(dir, 'v1.yaml');
    const v2 = join(dir, 'v2.yaml');
    writeFileSync(v1, yamlOf(oscV1()));
    // v2 also takes /third/file from a new image: it is staged before the first write, and a kill
    // during the systemd calls must not leave the staged copy behind (the tree holds no staged-*)
    const next = oscV2();
    next.spec.files = next.spec.files!.map((f) =>
      f.content.imageRef
        ? { ...f, content: { imageRef: { ...f.content.imageRef, image: 'foo-image:2' } } }
        : f,
    );
    writeFileSync(v2, yamlOf(next));
    const prepare = async (name: string) => {
      const root = join(dir, name);
      mkdirSync(root);
      const record = join(dir, `${name}.jsonl`);
      const setup = ['--root', root, '--images', images, `--systemd=record:${record}`];
      expect((await runCli(['apply', '--osc', v1, ...setup])).code).to.equal(0);
      const from = opsOf(record).length;
      return { root, record, from, args: ['apply', '--osc', v2, ...setup] };
    };

    const clean = await prepare('clean');
    expect((await runCli(clean.args)).code).to.equal(0);
    const calls = opsOf(clean.record).slice(clean.from);
    const expected = withoutNoOpStops(opsOf(clean.record), clean.from);
    const expectedTree = snapshotTree(clean.root);
    // least disruption by default: unit5 (no effective change) and unit6 (filePaths only) keep running
    expect(calls).to.have.length(15);
    expect(expected.filter(isUnitCommand)).to.deep.equal([
      'stop unit1',
      'restart unit2',
      'restart unit7',
      'stop unit4',
      'restart unit8',
      'restart unit9',
    ]);

    const repeatedCommands: string[] = [];
    const runK = async (k: number, when: 'after' | 'before') => {
      const name = `${when}-${k}`;
      const { root, record, from, args } = await prepare(name);
      const env = when === 'after' ? KILL_AFTER_SYSTEMD_OPS_ENV : KILL_BEFORE_SYSTEMD_OPS_ENV;
      // the k-th call of this apply is the (from + k)-th line of the record
      const killed = await spawnCli([...args, '--log-level', 'error'], { [env]: String(k) });
      expect(killed.signal, `${name}: ${killed.stderr}`).to.equal('SIGKILL');
      expect(opsOf(record).slice(from), name).to.deep.equal(calls.slice(0, when === 'after' ? k : k - 1));

      const resumed = await runCli(args);
      expect(resumed.code, `${name}: ${resumed.stderr}`).to.equal(0);
      expect(resumed.stdout).to.contain('resumed: true');
      const all = withoutNoOpStops(opsOf(record), from);
      repeatedCommands.push(
        ...repeats(opsOf(record).slice(from))
          .filter(isUnitCommand)
          .map((l) => `${name}: ${l}`),
      );
      expect(all.filter(isUnitCommand), `${name}: every restart and stop exactly once`).to.deep.equal(
        expected.filter(isUnitCommand),
      );
      expect(equalButOneIdempotentRepeat(all, expected), `${name}: ${all.join(', ')}`).to.equal(true);
      expect(snapshotTree(root), name).to.deep.equal(expectedTree);
    };

    const runs = calls.flatMap((_, i) => [
      [i + 1, 'after'],
      [i + 1, 'before'],
    ]) as [number, 'after' | 'before'][];
    for (let i = 0; i < runs.length; i += 2)
      await Promise.all(runs.slice(i, i + 2).map(([k, w]) => runK(k, w)));
    expect(repeatedCommands, 'restarts and stops repeated over every kill point').to.deep.equal([]);
  });
});
