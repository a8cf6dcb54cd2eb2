import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ProbeUnavailableError } from '../../../../node-agent/controllers/healthcheck/containerd-health.js';
import { ctrVersionCheck } from '../../../../node-agent/controllers/healthcheck/ctr-version-check.js';
import { useTempDirs } from '../../support/harness.js';

describe('health check: ctr version (production containerd probe)', () => {
  const tempDir = useTempDirs();
  const signal = new AbortController().signal;

  function fakeCtr(body: string): { ctr: string; log: string } {
    const dir = tempDir();
    const ctr = join(dir, 'ctr');
    const log = join(dir, 'argv');
    writeFileSync(ctr, `#!/bin/sh\necho "$@" > ${log}\n${body}\n`);
    chmodSync(ctr, 0o755);
    return { ctr, log };
  }

  it('asks containerd for its version on the configured socket and namespace', async () => {
    const { ctr, log } = fakeCtr('exit 0');
    await ctrVersionCheck({ ctr, env: { CONTAINERD_ADDRESS: '/run/c.sock' } })(signal);
    expect(readFileSync(log, 'utf8').trim()).to.equal('--address /run/c.sock --namespace default version');
  });

  it('fails with what ctr said, or after its deadline', async () => {
    const failure = (ctr: string, timeoutMs?: number) =>
      ctrVersionCheck({ ctr, env: {}, timeoutMs })(signal).then(
        () => 'no error',
        (e: Error) => e.message,
      );
    expect(await failure(fakeCtr('echo "connection refused" >&2; exit 1').ctr)).to.equal(
      'exit code 1: connection refused',
    );
    expect(await failure(fakeCtr('sleep 5').ctr, 100)).to.equal('containerd did not answer within 100 ms');
  });

  it('a missing ctr is "unavailable", not a containerd failure', async () => {
    let error: Error | undefined;
    await ctrVersionCheck({ ctr: join(tempDir(), 'no-ctr'), env: {} })(signal).catch(
      (e: Error) => (error = e),
    );
    expect(error).to.be.instanceOf(ProbeUnavailableError);
  });
});
