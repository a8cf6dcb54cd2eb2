/**
 * Least disruption (docs/least-disruption.md) on a real node: the agent runs with
 * `--disruption-policy defaults`, and each built-in default is judged by what the node's own
 * systemd and kernel report: which InvocationIDs change, and whether the change is in effect.
 * Prints one line per measured fact (`real node least disruption: …`).
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { readApplyReport, stringifyYaml } from '../../api/index.js';
import { sleep } from '../../hack/landscape/eventually.js';
import { AgentNode, changedByJobs, OS_UNITS } from '../../hack/real-node/agent-node.js';
import { appendToFile, editUnit, unitNames, withFile } from '../../hack/real-node/osc-edits.js';
import { jobStartsPerUnit } from '../../hack/real-node/systemd-state.js';

const JOURNALD_CONF = '/etc/systemd/journald.conf';
const SYSCTL_FILE = '/etc/sysctl.d/99-k8s-general.conf';
/**
 * A tunable of the node's own network namespace (the node has a private network): the node may
 * write it, and the machine's value cannot change. The other keys of the rendered file are not
 * namespaced; /proc/sys is read-only in the container for them.
 */
const SYSCTL_KEY = 'net/ipv4/ip_default_ttl';

const say = (fact: string) => console.log(`      real node least disruption: ${fact}`);

describe('a real node: least disruption with --disruption-policy defaults', function () {
  this.timeout(300_000);
  const n = new AgentNode();

  before(async function () {
    // cold: debootstrap (~2.5 min) and the agent's single executable; under load, minutes more
    this.timeout(25 * 60_000);
    await n.start('real-node-ld', ['--disruption-policy', 'defaults']);
  });

  after(async () => {
    await n.stop();
  });

  const allUnits = () => [...new Set([...unitNames(n.osc), ...OS_UNITS])];
  const report = async () =>
    readApplyReport((await n.readNode()).metadata?.annotations as Record<string, string>);

  /** Counts the journal entries of one identifier, and the numbered lines among them. */
  async function journalLines(identifier: string): Promise<string[]> {
    const out = await n.c.run(['journalctl', '--no-pager', '-o', 'cat', '-t', identifier]);
    return out.split('\n').filter((l) => l !== '');
  }

  it('a comment-only unit change keeps the InvocationID; plan says "no effective change"', async () => {
    const unit = 'valitail.service';
    const next = editUnit(n.osc, unit, (c) => `${c}\n# real-node: a comment systemd does not see\n`);
    // the agent's own plan on the node, against what it applied, before anything changes
    await n.writeInside('/var/tmp/real-node-next-osc.yaml', stringifyYaml(next));
    const plan = await n.c.run([
      '/opt/bin/gardener-node-agent',
      'plan',
      '--root',
      '/',
      '--next',
      '/var/tmp/real-node-next-osc.yaml',
      '--disruption-policy',
      'defaults',
    ]);
    const planLine = plan.split('\n').find((l) => l.includes(unit) && l.includes('no effective change'));
    expect(planLine, plan).to.be.a('string');
    const { before, after, starts } = await n.applyObserved(next, allUnits());
    expect(Object.fromEntries(jobStartsPerUnit(starts))).to.deep.equal({});
    expect(changedByJobs(before, after, starts)).to.deep.equal([]);
    expect(after.get(unit)).to.equal(before.get(unit));
    const r = await report();
    expect(r?.message).to.contain(`${unit} None`);
    say(`comment-only change of ${unit}: InvocationID kept, 0 job starts; plan: ${planLine!.trim()}`);
  });

  it('a journald configuration change restarts only systemd-journald, and it takes effect', async () => {
    // LineMax= is observable without touching what PID 1 logs: a longer stdout line is split
    const long = 'x'.repeat(300);
    const splitInto = async (identifier: string) => {
      await n.c.run(['sh', '-c', 'echo "$1" | systemd-cat -t "$2"', 'sh', long, identifier]);
      await n.c.run(['journalctl', '--sync']).catch(() => '');
      return (await journalLines(identifier)).length;
    };
    expect(await splitInto('real-node-linemax-before')).to.equal(1);

    // lines written across the restart: one long-lived stdout stream (as a service's stdout) and one
    // syslog datagram per line, numbered, until the apply is reported and a second after it
    const stop = '/run/real-node-writers-stop';
    const writer = (kind: string, emit: string) =>
      `i=0; while [ ! -e ${stop} ]; do i=$((i+1)); ${emit}; sleep 0.02; done; echo $i > /run/real-node-${kind}-count`;
    const writers = Promise.all([
      n.c.exec(
        ['sh', '-c', `(${writer('stream', 'echo "real-node-seq $i"')}) | systemd-cat -t real-node-stream`],
        240_000,
      ),
      n.c.exec(['sh', '-c', writer('syslog', 'logger -t real-node-syslog "real-node-seq $i"')], 240_000),
    ]);
    let observed: Awaited<ReturnType<typeof n.applyObserved>>;
    try {
      await sleep(1_000);
      observed = await n.applyObserved(appendToFile(n.osc, JOURNALD_CONF, 'LineMax=100\n'), allUnits());
      await sleep(1_000);
    } finally {
      await n.c.run(['touch', stop]);
      await writers;
    }
    const { before, after, starts } = observed;
    // PID 1's own messages about journald's restart are not in the journal (journald is down
    // while PID 1 writes them), so the restart is judged by InvocationIDs and the apply report
    const journaldStarts = starts.filter((s) => s.unit === 'systemd-journald.service').length;
    expect(
      Object.fromEntries(jobStartsPerUnit(starts.filter((s) => s.unit !== 'systemd-journald.service'))),
    ).to.deep.equal({});
    expect(changedByJobs(before, after, starts)).to.deep.equal(['systemd-journald.service']);
    expect((await report())?.message).to.contain('systemd-journald.service Restart');
    expect(after.get('kubelet.service')).to.equal(before.get('kubelet.service'));
    say(
      `journald.conf change: systemd-journald.service restarted (new InvocationID; ${journaldStarts} start of it in PID 1's journal), every other InvocationID kept, kubelet's too`,
    );

    // in effect: the same 300-character line is now split at LineMax=100
    const pieces = await splitInto('real-node-linemax-after');
    expect(pieces).to.be.greaterThan(1);
    say(`journald LineMax=100 in effect: a 300-character stdout line is ${pieces} entries (1 before)`);

    await n.c.run(['journalctl', '--sync']).catch(() => '');
    for (const kind of ['stream', 'syslog'] as const) {
      const written = Number((await n.c.run(['cat', `/run/real-node-${kind}-count`])).trim());
      const kept = (await journalLines(`real-node-${kind}`)).filter((l) => l.startsWith('real-node-seq '));
      const numbers = new Set(kept.map((l) => Number(l.split(' ')[1])));
      const lost: number[] = [];
      for (let i = 1; i <= written; i++) if (!numbers.has(i)) lost.push(i);
      say(
        `journald restart, ${kind === 'stream' ? 'one stdout stream (systemd-cat)' : 'one syslog datagram per line (logger)'}: ${written} lines written across it, ${numbers.size} in the journal, ${lost.length} lost${lost.length ? ` (${lost.slice(0, 10).join(', ')}${lost.length > 10 ? ', …' : ''})` : ''}`,
      );
      expect(written, `${kind} lines written`).to.be.greaterThan(50);
      expect(lost, `${kind} lines lost across the journald restart`).to.deep.equal([]);
    }
  });

  it('a sysctl file change restarts only systemd-sysctl, and the value is in /proc/sys', async () => {
    const inside = async () => (await n.c.run(['cat', `/proc/sys/${SYSCTL_KEY}`])).trim();
    const machine = readFileSync(`/proc/sys/${SYSCTL_KEY}`, 'utf8').trim();
    const value = (await inside()) === '77' ? '78' : '77';
    const all = allUnits();
    const before = await n.invocations(all);
    const starts = await n.apply(
      appendToFile(n.osc, SYSCTL_FILE, `${SYSCTL_KEY.replaceAll('/', '.')} = ${value}\n`),
    );
    const after = await n.invocations(all);
    expect(Object.fromEntries(jobStartsPerUnit(starts))).to.deep.equal({ 'systemd-sysctl.service': 1 });
    expect(changedByJobs(before, after, starts)).to.deep.equal(['systemd-sysctl.service']);
    expect(await inside()).to.equal(value);
    expect(readFileSync(`/proc/sys/${SYSCTL_KEY}`, 'utf8').trim(), "the machine's value").to.equal(machine);
    say(
      `sysctl file change: 1 restart job (systemd-sysctl.service), every other InvocationID kept; ${SYSCTL_KEY.replaceAll('/', '.')} = ${value} in the node's /proc/sys (the machine's stays ${machine})`,
    );
  });

  it('a file no unit reads restarts nothing', async () => {
    const path = '/etc/real-node/unread.conf';
    const { before, after, starts } = await n.applyObserved(
      withFile(n.osc, path, 'read by nobody\n'),
      allUnits(),
    );
    expect(Object.fromEntries(jobStartsPerUnit(starts))).to.deep.equal({});
    expect(changedByJobs(before, after, starts)).to.deep.equal([]);
    expect((await n.c.run(['cat', path])).trim()).to.equal('read by nobody');
    say(`a new file no unit lists (${path}): written, 0 job starts, every InvocationID kept`);
  });

  it('leaves the host as found', async () => {
    expect(await n.hostLeftovers()).to.deep.equal([]);
  });
});
