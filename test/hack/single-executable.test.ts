/** hack/single-executable.ts: what building an executable leaves behind in the building process. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { injectBlob, loadPostject } from '../../hack/single-executable.js';

describe('hack/single-executable', () => {
  it("injecting leaves the process's error handlers as they were, even when postject fails", async () => {
    // postject's runtime adds handlers that rethrow every unhandled rejection: left in a test run,
    // one stray rejection (a timed-out test's work) would end the whole run.
    const dir = mkdtempSync(join(tmpdir(), 'gna-sea-'));
    try {
      const notAnExecutable = join(dir, 'not-an-executable');
      writeFileSync(notAnExecutable, Buffer.alloc(128));
      const counts = () => [
        process.listenerCount('uncaughtException'),
        process.listenerCount('unhandledRejection'),
      ];
      const before = counts();
      const error = await injectBlob(loadPostject().module, notAnExecutable, Buffer.from('blob')).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(String(error)).to.match(/must be a supported format/);
      expect(counts()).to.deep.equal(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
