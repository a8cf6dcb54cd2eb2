/**
 * A `systemctl` on PATH that only logs its arguments, one call per line, and answers `show` with a
 * running unit: how a test drives the agent a node runs (`--systemd systemctl`, the only systemd
 * of node-agent/bin.ts) without touching the machine's systemd.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FakeSystemctl {
  /** Put first on PATH. */
  readonly binDir: string;
  /** Each call's arguments after `--no-ask-password`, e.g. `--job-mode=replace restart -- unit1`. */
  calls(): string[];
  /** The verb of each call: daemon-reload, enable, start, ... (`show` left out). */
  verbs(): string[];
}

export function fakeSystemctl(dir: string): FakeSystemctl {
  const binDir = join(dir, 'fake-bin');
  const log = join(dir, 'systemctl.log');
  mkdirSync(binDir, { recursive: true });
  writeFileSync(
    join(binDir, 'systemctl'),
    `#!/bin/sh
[ "$1" = "--no-ask-password" ] && shift
echo "$*" >> '${log}'
case " $* " in
  *" show "*) printf 'LoadState=loaded\\nActiveState=active\\nSubState=running\\nResult=success\\nInvocationID=0123456789abcdef0123456789abcdef\\n' ;;
esac
exit 0
`,
  );
  chmodSync(join(binDir, 'systemctl'), 0o755);
  const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  return {
    binDir,
    calls,
    verbs: () =>
      calls()
        .map((c) => c.split(' ').find((a) => !a.startsWith('-')) ?? '')
        .filter((v) => v !== 'show'),
  };
}
