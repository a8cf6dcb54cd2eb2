/**
 * The health-check and drift-check flags of `run` are checked before the agent starts (exit 2,
 * nothing touched).
 */
import { join } from 'node:path';
import { expect } from 'chai';
import { driftIntervalMs } from '../../../node-agent/cli/run-command.js';
import { runCli } from '../support/cli-run.js';
import { useTempDirs } from '../support/harness.js';
import { writeUnreachableAgentConfig } from '../support/unreachable-agent-config.js';

describe('gardener-node-agent run: health-check flags', () => {
  const tempDir = useTempDirs();

  function args(...extra: string[]): string[] {
    const dir = tempDir();
    const config = writeUnreachableAgentConfig(dir);
    return ['run', '--config', config, '--root', dir, '--systemd', `record:${join(dir, 'ops')}`, ...extra];
  }

  it('rejects a kubelet URL that is not http://', async () => {
    const result = await runCli(args('--kubelet-healthz-url', 'ftp://127.0.0.1/healthz'));
    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('--kubelet-healthz-url must be an http:// URL or "off"');
  });

  it('knows only ctr and off for --containerd-check', async () => {
    const result = await runCli(args('--containerd-check', 'grpc'));
    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('--containerd-check');
  });

  it('documents the flags', async () => {
    const result = await runCli(['run', '--help']);
    for (const flag of ['--kubelet-healthz-url', '--containerd-check', '--no-health-check'])
      expect(result.stdout + result.stderr).to.contain(flag);
  });

  describe('--drift-check-interval', () => {
    it('0s turns the monitor off; absent leaves the default to the agent (on at /)', () => {
      expect(driftIntervalMs('0s')).to.equal(false);
      expect(driftIntervalMs(undefined)).to.equal(undefined);
      expect(driftIntervalMs('1m30s')).to.equal(90_000);
    });

    it('rejects less than a second and what is no duration, naming the flag', async () => {
      for (const value of ['500ms', 'often']) {
        const result = await runCli(args('--drift-check-interval', value));
        expect(result.code, value).to.equal(2);
        expect(result.stderr, value).to.contain('--drift-check-interval');
      }
    });

    it('says in --help that it is on by default on a node', async () => {
      const result = await runCli(['run', '--help']);
      expect(result.stdout).to.match(/"0s": off; default 1m when --root\s+is \/, else off/);
    });
  });
});
