/**
 * A real node never outlives the process that booted it: SIGKILL of the owner powers the node off
 * and removes what it left on the host (hack/envtest's supervisor and node.sh); when even node.sh
 * was killed, the next run's reaper does it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { envtestBinaries } from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { realNodeCache } from '../../hack/real-node/cache.js';
import { reapStaleNodes, runsDir } from '../../hack/real-node/runs.js';

const BARE_NODE = resolve(import.meta.dirname, 'support/bare-node.ts');

interface Booted {
  readonly owner: ChildProcess;
  readonly leader: number;
  readonly nspawnPid: number;
  readonly nodeDir: string;
}

/** A process that still runs (a zombie waiting for this machine's init to reap it does not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** What the node `name` has on this machine: its processes' pids, cgroups, /run entries, directory. */
function leftovers(name: string, b: Booted): string[] {
  const left: string[] = [];
  for (const pid of [b.leader, b.nspawnPid]) if (alive(pid)) left.push(`process ${pid}`);
  for (const dir of ['/sys/fs/cgroup/unified', '/sys/fs/cgroup/systemd'])
    if (existsSync(join(dir, name))) left.push(join(dir, name));
  if (existsSync('/run/systemd/nspawn'))
    for (const sub of readdirSync('/run/systemd/nspawn'))
      if (existsSync(join('/run/systemd/nspawn', sub, name)))
        left.push(join('/run/systemd/nspawn', sub, name));
  if (existsSync(b.nodeDir)) left.push(b.nodeDir);
  return left;
}

function bootInChild(name: string): Promise<Booted> {
  const owner = spawn(process.execPath, ['--import', 'tsx', BARE_NODE, name], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' },
  });
  let out = '';
  let err = '';
  owner.stderr!.on('data', (d) => (err += d));
  return new Promise((resolveBooted, reject) => {
    owner.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolveBooted({ owner, ...JSON.parse(out.split('\n')[0]!) });
    });
    owner.once('exit', (code) => reject(new Error(`the owner exited ${code} before the node ran:\n${err}`)));
  });
}

describe('real nodes are killed with the process that booted them', function () {
  this.timeout(120_000);
  const owners: ChildProcess[] = [];

  before(function () {
    this.timeout(20 * 60_000);
    realNodeCache();
    envtestBinaries();
  });

  after(() => {
    for (const o of owners) o.kill('SIGKILL');
  });

  it('SIGKILL of the owner: the node powers off and nothing of it is left on the host', async () => {
    const name = `real-node-sigkill-${Date.now().toString(36)}`;
    const booted = await bootInChild(name);
    owners.push(booted.owner);
    expect(leftovers(name, booted)).to.not.deep.equal([]);
    expect(readFileSync(`/proc/${booted.leader}/comm`, 'utf8').trim()).to.equal('systemd');
    booted.owner.kill('SIGKILL');
    await eventually('the node gone', () => leftovers(name, booted).length === 0, 30_000, 200).catch(() => {
      throw new Error(`left on the host: ${leftovers(name, booted).join(', ')}`);
    });
    // only the owner's record remains, for the reaper, which finds nothing else to do
    expect(readdirSync(runsDir())).to.include(`${booted.owner.pid}-${name}.json`);
    expect(reapStaleNodes()).to.include(name);
    expect(readdirSync(runsDir())).to.not.include(`${booted.owner.pid}-${name}.json`);
  });

  it('when node.sh itself was SIGKILLed too, the next run reaps what the node left', async () => {
    const name = `real-node-reap-${Date.now().toString(36)}`;
    const booted = await bootInChild(name);
    owners.push(booted.owner);
    // node.sh (the parent of nspawn) dies without cleaning up; nspawn gets its parent-death signal
    const nodeSh = Number(
      readFileSync(`/proc/${booted.nspawnPid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1],
    );
    expect(readFileSync(`/proc/${nodeSh}/cmdline`, 'utf8')).to.contain('boot-detached');
    process.kill(nodeSh, 'SIGKILL');
    booted.owner.kill('SIGKILL');
    await eventually('the container gone', () => !alive(booted.leader), 30_000, 200);
    expect(leftovers(name, booted)).to.not.deep.equal([]);
    expect(reapStaleNodes()).to.include(name);
    expect(leftovers(name, booted)).to.deep.equal([]);
  });
});
