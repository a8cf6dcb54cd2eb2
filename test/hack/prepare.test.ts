/**
 * hack/prepare: what `npm test` does before the first test timer starts. The decision about
 * missing prerequisites is table-tested; the runner runs real scripts: one that waits for a lock a
 * process of this test holds (the wait must name that process), one that stays silent (its elapsed
 * time must show), one that fails.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { expect } from 'chai';
import { startLateBuilds } from '../../hack/prepare/background.js';
import { decide, goIsRecentEnough } from '../../hack/prepare/decide.js';
import { formatDuration, parseProcLocks } from '../../hack/prepare/lock-holder.js';
import { argvOf, onPath, prepare } from '../../hack/prepare/main.js';
import { BUILDS, GO_MINIMUM, PACKAGES } from '../../hack/prepare/prerequisites.js';
import { build, debian } from '../../hack/prepare/registry.js';

const ROOT = resolve(import.meta.dirname, '../..');
const shellcheck = debian('shellcheck', { why: 'checks scripts' });
const umoci = debian('umoci', { why: 'unpacks images' });
const goOk = { needed: true, found: 'go1.26.8', minimum: '1.24' };

/** The TypeScript files under `dir` (tests and their support code). */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.split('/').includes('golden'))
    .map((f) => join(dir, f));
}

describe('hack/prepare: test prerequisites', () => {
  describe('decide', () => {
    it('does nothing when nothing is missing', () => {
      expect(decide({ missing: [], go: goOk, root: false, apt: false })).to.deep.equal({ action: 'none' });
    });

    it('installs the missing packages as root with apt', () => {
      expect(decide({ missing: [shellcheck, umoci], go: goOk, root: true, apt: true })).to.deep.equal({
        action: 'install',
        packages: ['shellcheck', 'umoci'],
      });
    });

    for (const [what, root, apt] of [
      ['not root', false, true],
      ['root without apt', true, false],
    ] as const) {
      it(`stops with one message listing every missing package when ${what}`, () => {
        const plan = decide({ missing: [shellcheck, umoci], go: goOk, root, apt });
        expect(plan.action).to.equal('stop');
        const message = (plan as { message: string }).message;
        expect(message).to.contain('apt-get install -y --no-install-recommends shellcheck umoci');
        expect(message).to.contain('checks scripts').and.to.contain('unpacks images');
        expect(message.includes('npm test installs them itself')).to.equal(!root);
      });
    }

    it('stops before installing anything when Go is missing or too old, listing the packages too', () => {
      const missingGo = decide({
        missing: [shellcheck],
        go: { ...goOk, found: undefined },
        root: true,
        apt: true,
      });
      expect(missingGo.action).to.equal('stop');
      expect((missingGo as { message: string }).message)
        .to.contain('Go >= 1.24 is not on PATH')
        .and.to.contain('shellcheck');
      const old = decide({ missing: [], go: { ...goOk, found: 'go1.19.8' }, root: true, apt: true });
      expect((old as { message: string }).message).to.contain('this machine has go1.19.8');
      expect(
        decide({ missing: [], go: { ...goOk, needed: false, found: undefined }, root: false, apt: false }),
      ).to.deep.equal({ action: 'none' });
    });

    it('compares Go versions numerically', () => {
      const cases: [string, boolean][] = [
        ['go1.24.0', true],
        ['go1.24', true],
        ['go1.26.8', true],
        ['go1.23.12', false],
        ['go1.9', false],
        ['go2.0.0', true],
        ['devel go1.27-abcdef', true],
      ];
      for (const [found, ok] of cases) expect(goIsRecentEnough(found, '1.24'), found).to.equal(ok);
    });
  });

  describe('the registry', () => {
    it('names scripts that exist, and the Go minimum is what hack/envtest/go.mod asks', () => {
      for (const b of BUILDS) expect(existsSync(join(ROOT, b.argv[0]!)), b.name).to.equal(true);
      const goLine = /^go (\d+\.\d+)/m.exec(readFileSync(join(ROOT, 'hack/envtest/go.mod'), 'utf8'))?.[1];
      expect(GO_MINIMUM).to.equal(goLine);
      expect(PACKAGES.map((p) => p.deb)).to.include.members(['shellcheck', 'systemd', 'openssl', 'umoci']);
    });

    it('installs every Debian package a test asks for in its `apt-get install` hint', () => {
      const asked = new Map<string, string>();
      for (const file of testFiles(join(ROOT, 'test'))) {
        if (file.endsWith(join('hack', 'prepare.test.ts'))) continue;
        for (const [, names] of readFileSync(file, 'utf8').matchAll(/apt-get install((?: +[-a-z0-9.+]+)+)/g))
          for (const name of names!.trim().split(/ +/))
            if (!name.startsWith('-')) asked.set(name, file.slice(ROOT.length + 1));
      }
      expect(asked.size, 'hints found').to.be.greaterThan(0);
      const prepared = new Set([...PACKAGES, ...BUILDS.flatMap((b) => b.packages)].map((p) => p.deb));
      for (const [name, file] of asked)
        expect(prepared.has(name), `${name} (asked in ${file})`).to.equal(true);
    });

    it('a build line carries its own Debian packages; scripts run by their kind', () => {
      const b = build('real-node', 'hack/real-node/build.sh --fast', { why: 'x', packages: ['debootstrap'] });
      expect(b.packages).to.deep.equal([
        { deb: 'debootstrap', command: 'debootstrap', why: 'needed by the real-node build' },
      ]);
      expect(argvOf(b)).to.deep.equal(['bash', 'hack/real-node/build.sh', '--fast']);
      expect(argvOf(build('x', 'a/b.mjs', { why: '' }))).to.deep.equal([process.execPath, 'a/b.mjs']);
      expect(argvOf(build('x', 'a/b.ts y', { why: '' }))).to.deep.equal([
        process.execPath,
        '--import',
        'tsx',
        'a/b.ts',
        'y',
      ]);
    });
  });

  it('reads /proc/locks, waiters included', () => {
    const entries = parseProcLocks(
      '1: FLOCK  ADVISORY  WRITE 5712 fe:00:9977903 0 EOF\n1: -> FLOCK  ADVISORY  WRITE 6001 fe:00:9977903 0 EOF\n2: OFDLCK ADVISORY  WRITE -1 fe:01:77 0 EOF\n',
    );
    expect(entries).to.deep.equal([
      { blocked: false, kind: 'FLOCK', pid: 5712, file: '254:0:9977903' },
      { blocked: true, kind: 'FLOCK', pid: 6001, file: '254:0:9977903' },
      { blocked: false, kind: 'OFDLCK', pid: -1, file: '254:1:77' },
    ]);
    expect([5, 65, 3725].map(formatDuration)).to.deep.equal(['5s', '1m05s', '1h02m']);
  });

  describe('running builds', function () {
    this.timeout(30_000);
    let dir: string;
    const children: ChildProcess[] = [];
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'osc-prepare-'));
    });
    afterEach(() => {
      for (const c of children.splice(0)) c.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });

    const script = (name: string, body: string) => {
      const path = join(dir, name);
      writeFileSync(path, `set -euo pipefail\n${body}\n`);
      return path;
    };
    const run = (builds: ReturnType<typeof build>[], extra: Partial<Parameters<typeof prepare>[0]> = {}) => {
      const lines: string[] = [];
      const result = prepare({
        builds,
        packages: [],
        goMinimum: '1.0',
        log: (l) => lines.push(l),
        pollMs: 100,
        quietMs: 400,
        root: false,
        forward: () => undefined,
        ...extra,
      });
      return { lines, result };
    };

    it('names the process that holds the lock a build waits for, then returns its last stdout line', async () => {
      const lock = join(dir, 'build.lock');
      // held the way the build scripts hold it: flock(1) takes it for the shell, then exits
      const holder = spawn('bash', ['-c', `exec 9>"${lock}"; flock 9; echo locked; exec sleep 30`], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      children.push(holder);
      await new Promise((r) => holder.stdout!.once('data', r));
      const waiter = script('wait.sh', `exec 9>"${lock}"\nflock 9\necho building >&2\necho /cache/one`);
      const { lines, result } = run([build('waiter', waiter, { why: 'waits' })]);
      const deadline = Date.now() + 10_000;
      while (!lines.some((l) => l.includes('held by')) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      const wait = lines.find((l) => l.includes('held by'));
      expect(wait).to.contain(`waiting for the lock ${lock}, held by pid ${holder.pid} \`sleep 30\``);
      expect(wait).to.contain(`in ${dir}`);
      holder.kill('SIGKILL');
      const [outcome] = await result;
      expect(outcome).to.include({ name: 'waiter', dir: '/cache/one' });
      expect(lines.at(-1)).to.match(/^prepare: waiter: ready in \d+s: \/cache\/one$/);
    });

    it('shows the elapsed time of a silent build, and fails naming the build and its exit code', async () => {
      const silent = script('silent.sh', 'sleep 1\necho /cache/two');
      const failing = script('fail.sh', 'echo broken >&2\nexit 3');
      const { lines, result } = run([
        build('silent', silent, { why: 'is quiet' }),
        build('failing', failing, { why: 'fails' }),
      ]);
      const error = await result.then(
        () => undefined,
        (e: Error) => e,
      );
      expect(lines[0]).to.equal('prepare: silent: is quiet ...');
      expect(
        lines.some((l) => /^prepare: silent: still running \(\ds\)$/.test(l)),
        lines.join('\n'),
      ).to.equal(true);
      expect(error?.message).to.match(/^failing \(.*fail\.sh\) failed after \ds: exit 3$/);
    });

    it('runs a build that may fail on stale package lists again after apt-get update, once', async () => {
      const marker = join(dir, 'tried');
      const flaky = script(
        'flaky.sh',
        `if [ ! -e "${marker}" ]; then touch "${marker}"; exit 4; fi\necho /cache/three`,
      );
      let updates = 0;
      const aptUpdate = () => updates++;
      const retried = build('flaky', flaky, { why: 'x', retryAfterAptUpdate: true });
      const [outcome] = await run([retried], { root: true, apt: true, aptUpdate }).result;
      expect(outcome!.dir).to.equal('/cache/three');
      expect(updates).to.equal(1);
      rmSync(marker);
      const plain = build('plain', flaky, { why: 'x' });
      const error = await run([plain], { root: true, apt: true, aptUpdate }).result.then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).to.match(/^plain .* exit 4$/);
      expect(updates).to.equal(1);
    });

    it('stops before any build when a package is missing and it may not install', async () => {
      const marker = join(dir, 'ran');
      const b = build('never', script('never.sh', `touch "${marker}"\necho /x`), {
        why: 'must not run',
        packages: [debian('osc-test-no-such-package', { why: 'is missing' })],
      });
      const error = await run([b]).result.then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).to.contain('osc-test-no-such-package').and.to.contain('is missing');
      expect(existsSync(marker)).to.equal(false);
    });

    it('leaves a late build to the background, which holds its lock until it is done', async () => {
      const lock = join(dir, 'late.lock');
      const logFile = join(dir, 'late.log');
      const slow = script(
        'slow.sh',
        `exec 9>"${lock}"\nflock 9\necho compiling >&2\nsleep 2\necho /cache/late`,
      );
      const lines: string[] = [];
      const state = await startLateBuilds([build('slow', slow, { why: 'x', late: true })], {
        log: (l) => lines.push(l),
        graceMs: 200,
        logFile,
      });
      expect(state).to.equal('background');
      expect(lines).to.have.length(1);
      expect(lines[0]).to.match(/^prepare: slow: building in the background \(pid \d+, log .*late\.log\)/);
      const deadline = Date.now() + 20_000;
      const logText = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
      while (!logText().includes('compiling') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      // what a test's `before` hook does: run the script, which waits for the lock
      const waitStarted = Date.now();
      const waiter = spawnSync('bash', ['-c', `exec 9>"${lock}"; flock 9; echo got`], { encoding: 'utf8' });
      expect(waiter.stdout.trim()).to.equal('got');
      expect(Date.now() - waitStarted).to.be.greaterThan(500);
      while (!logText().includes('background builds ready') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(logText()).to.match(/prepare: slow: ready in \d+s: \/cache\/late/);
    });

    it('fails at once when a late build fails within the grace period, with its log', async () => {
      const failing = script('late-fail.sh', 'echo "no such toolchain" >&2\nexit 3');
      const error = await startLateBuilds([build('late-fail', failing, { why: 'x', late: true })], {
        log: () => undefined,
        graceMs: 20_000,
        logFile: join(dir, 'fail.log'),
      }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).to.match(/^background builds late-fail failed \(exit 1; log .*fail\.log\):/);
      expect(error?.message).to.contain('no such toolchain').and.to.contain('exit 3');
      const lines: string[] = [];
      const quick = script('late-ok.sh', 'echo /cache/warm');
      const state = await startLateBuilds([build('late-ok', quick, { why: 'x', late: true })], {
        log: (l) => lines.push(l),
        graceMs: 20_000,
        logFile: join(dir, 'ok.log'),
      });
      expect(state).to.equal('ready');
      expect(lines).to.deep.equal([]);
    });

    it('installs missing packages when it may, then checks they arrived', async () => {
      const bin = join(dir, 'bin');
      const installed: string[][] = [];
      const pkg = debian('osc-test-tool', { why: 'a tool' });
      const savedPath = process.env.PATH;
      process.env.PATH = `${bin}${delimiter}${savedPath}`;
      try {
        const install = (packages: readonly string[]) => {
          installed.push([...packages]);
          mkdirSync(bin, { recursive: true });
          writeFileSync(join(bin, 'osc-test-tool'), '#!/bin/sh\n');
          chmodSync(join(bin, 'osc-test-tool'), 0o755);
        };
        expect(onPath('osc-test-tool')).to.equal(false);
        const ok = build('uses-tool', script('ok.sh', 'echo /y'), { why: 'x', packages: [pkg] });
        const [outcome] = await run([ok], { root: true, apt: true, install }).result;
        expect(installed).to.deep.equal([['osc-test-tool']]);
        expect(outcome!.dir).to.equal('/y');
        const broken = (packages: readonly string[]) => installed.push([...packages]);
        const other = debian('osc-test-other', { why: 'never arrives' });
        const b = build('b', script('b.sh', 'echo /z'), { why: 'x', packages: [other] });
        const error = await run([b], { root: true, apt: true, install: broken }).result.then(
          () => undefined,
          (e: Error) => e,
        );
        expect(error?.message).to.equal('installing osc-test-other left osc-test-other missing');
      } finally {
        process.env.PATH = savedPath;
      }
    });
  });
});
