/**
 * The node agent under a real systemd: a node of the example shoot's pool boots as a machine would
 * (hack/real-node), runs its provision user data, node-init installs the agent's single executable
 * and hands over to gardener-node-agent.service, which applies the pool's OSC against the shoot
 * API server. Every expectation is what the node's own systemd reports; each test changes the OSC
 * the one before left applied, as gardenlet would.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import {
  ANNOTATION,
  APPLY_REASON,
  type OperatingSystemConfig,
  readApplyReport,
  sha256Hex,
  stringifyYaml,
} from '../../api/index.js';
import { buildNodeAgent } from '../../hack/build-node-agent.js';
import { type Envtest, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import {
  AGENT_UNIT,
  agentMainPid,
  agentMetric,
  applyInFlight,
  httpGetInside,
  type Kill,
  killAgentHeldAt,
  runningJobs,
} from '../../hack/real-node/agent-probes.js';
import { AGENT_BARRIERS_ENV, applyPoint, unitStop } from '../../hack/real-node/barriers.js';
import { realNodeCache } from '../../hack/real-node/cache.js';
import type { Container } from '../../hack/real-node/container.js';
import { type HostSnapshot, hostDifferences, hostSnapshot } from '../../hack/real-node/host-state.js';
import { type NodeUnderTest, provisionNode } from '../../hack/real-node/node-under-test.js';
import {
  appendToFile,
  decodeOsc,
  unitNames,
  withMaxPods,
  withoutUnits,
  withUnit,
} from '../../hack/real-node/osc-edits.js';
import { reapStaleNodes } from '../../hack/real-node/runs.js';
import { type ShootForNodes, setUpShoot } from '../../hack/real-node/shoot.js';
import {
  jobStartsPerUnit,
  journalCursor,
  showUnits,
  type UnitStart,
  unitStartsSince,
} from '../../hack/real-node/systemd-state.js';
import { expectUnitsAsOscSays } from './unit-expectations.js';

/** Units of the image itself, which no apply of the agent may touch. */
const OS_UNITS = [
  'containerd.service',
  'ssh.service',
  'dbus.service',
  'systemd-journald.service',
  'cron.service',
];

describe('a real node: the agent under a real systemd', function () {
  this.timeout(180_000);
  let envtest: Envtest;
  let shoot: ShootForNodes;
  let core: CoreV1Api;
  let node: NodeUnderTest | undefined;
  let c: Container;
  let buildDir: string;
  let host: HostSnapshot;
  let osc: OperatingSystemConfig;
  const name = `real-node-${Date.now().toString(36)}`;

  before(async function () {
    // cold: debootstrap (~2.5 min) and the agent's single executable; warm: seconds
    this.timeout(20 * 60_000);
    reapStaleNodes();
    host = hostSnapshot();
    realNodeCache();
    buildDir = mkdtempSync(join(tmpdir(), 'real-node-agent-'));
    const [started, build] = await Promise.all([
      startEnvtest({ name: 'real-node' }),
      buildNodeAgent({ outDir: buildDir }),
    ]);
    envtest = started;
    core = envtest.kubeConfig.makeApiClient(CoreV1Api);
    shoot = await setUpShoot(envtest);
    osc = decodeOsc(shoot.oscYaml);
    node = await provisionNode({ name, shoot, envtest, agentBinary: build.binary });
    c = node.container;
  });

  after(async () => {
    await node?.stop();
    await shoot?.cleanup();
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  });

  const nodeChecksum = async () =>
    (await core.readNode({ name })).metadata?.annotations?.[ANNOTATION.checksumCloudConfigData];
  /** What the agent reported of its last apply on its Node (docs/rollout.md). */
  const applyReport = async () =>
    readApplyReport((await core.readNode({ name })).metadata?.annotations as Record<string, string>);

  /** Waits until the Node reports `checksum` applied; on timeout the node's journal tells why. */
  async function applied(checksum: string, timeoutMs = 120_000): Promise<void> {
    await eventually(
      'the Node to report the OSC applied',
      async () => (await nodeChecksum()) === checksum,
      timeoutMs,
      250,
    ).catch(async (e: Error) => {
      const journal = await c.exec(['journalctl', '--no-pager', '-n', '60', '-u', AGENT_UNIT, '-o', 'cat']);
      throw new Error(`${e.message}; the agent's journal:\n${journal.stdout}`);
    });
  }

  /** Publishes the OSC and returns what systemd started until the Node reported it applied. */
  async function apply(next: OperatingSystemConfig, during?: () => Promise<void>): Promise<UnitStart[]> {
    const cursor = await journalCursor(c);
    const checksum = await shoot.publishOsc(next);
    await during?.();
    await applied(checksum);
    osc = next;
    return unitStartsSince(c, cursor);
  }

  /** Restarts the agent as an operator would and waits until the new one serves /healthz. */
  async function restartAgent(): Promise<void> {
    const before = await agentMainPid(c);
    await c.run(['systemctl', 'restart', AGENT_UNIT]);
    await eventually(
      'the restarted agent to serve /healthz',
      async () => {
        const pid = await agentMainPid(c);
        if (pid === 0 || pid === before) return false;
        return (await httpGetInside(c, 2751, '/healthz').catch(() => '')).includes('check passed');
      },
      60_000,
      250,
    );
  }

  const invocations = async (units: readonly string[]) =>
    new Map([...(await showUnits(c, units, ['InvocationID']))].map(([u, p]) => [u, p.InvocationID]));

  it('first apply: every unit of the OSC is enabled and active as systemd reports; the agent restarted itself once', async () => {
    await applied(sha256Hex(shoot.oscYaml));
    await expectUnitsAsOscSays(c, osc);

    const agentStarts = (await unitStartsSince(c, '')).filter((s) => s.unit === AGENT_UNIT);
    // started by bootstrap (a job), then once more by systemd after it exited for its new unit
    expect(agentStarts.map((s) => s.cause)).to.deep.equal(['job', 'restart-policy']);
    const log = (await c.run(['journalctl', '--no-pager', '-o', 'cat', '-u', AGENT_UNIT])).split('\n');
    expect(log.filter((l) => l.includes('Exiting so that systemd restarts the node agent'))).to.have.length(
      1,
    );
    expect(await agentMainPid(c)).to.be.greaterThan(0);

    // the path to the API server: the node's own loopback, nothing of this machine's network
    const interfaces = readFileSync(`/proc/${c.leader}/net/dev`, 'utf8').split('\n').slice(2);
    expect(interfaces.filter((l) => l.trim()).map((l) => l.split(':')[0]!.trim())).to.deep.equal(['lo']);
  });

  it('with no flag the agent watches for drift: a deleted sysctl file is restored, the Node says so', async () => {
    // the unit is contract bytes and passes only --config: the monitor must be the agent's default
    const sysctl = '/etc/sysctl.d/99-k8s-general.conf';
    const bytes = await c.run(['cat', sysctl]);
    await c.run(['rm', sysctl]);
    await eventually(
      'the agent to restore the deleted sysctl file',
      async () => (await c.exec(['cat', sysctl])).stdout === bytes,
      30_000,
      250,
    ).catch(async (e: Error) => {
      const journal = await c.exec(['journalctl', '--no-pager', '-n', '40', '-u', AGENT_UNIT, '-o', 'cat']);
      throw new Error(`${e.message}; the agent's journal:\n${journal.stdout}`);
    });
    // the repair's own write is seen too, and that check finds nothing: DriftRepaired, then NoDrift
    const events = await eventually(
      'the Events of the drift and of its repair',
      async () => {
        const items = (
          await core.listNamespacedEvent({
            namespace: 'default',
            fieldSelector: `involvedObject.name=${name}`,
          })
        ).items;
        const drift = items.find((e) => e.reason === 'ConfigurationDrift' && e.message?.includes(sysctl));
        const repaired = items.find((e) => e.reason === 'ConfigurationDriftRepaired');
        return drift && repaired && { drift, repaired };
      },
      30_000,
      250,
    );
    expect(events.drift.type).to.equal('Warning');
    expect(events.drift.message).to.match(
      new RegExp(
        `^file ${sysctl}: missing \\(.*node has absent\\): Repair \\(default: rendered by gardenlet\\)$`,
      ),
    );
    const conditions = (await core.readNode({ name })).status?.conditions ?? [];
    expect(conditions.find((k) => k.type === 'NodeConfigurationDrift')).to.include({ status: 'False' });
  });

  it('a kubelet configuration change restarts exactly kubelet: its InvocationID changes and no other', async () => {
    const all = unitNames(osc).concat(OS_UNITS);
    const before = await invocations(all);
    const starts = await apply(withMaxPods(osc, 120));
    expect(Object.fromEntries(jobStartsPerUnit(starts))).to.deep.equal({ 'kubelet.service': 1 });
    const after = await invocations(all);
    const changed = all.filter((u) => before.get(u) !== after.get(u));
    // sshd-ensurer.service ends and is started again by its own Restart=always every 15 s
    const byItself = new Set(starts.filter((s) => s.cause !== 'job').map((s) => s.unit));
    expect(changed.filter((u) => !byItself.has(u))).to.deep.equal(['kubelet.service']);
  });

  it('a drop-in changed through spec.files takes effect: systemctl show sees the new setting', async () => {
    const dropIn = '/etc/systemd/system/containerd.service.d/10-require-containerd-initializer.conf';
    const value = `REAL_NODE_PROBE=${Date.now()}`;
    const starts = await apply(appendToFile(osc, dropIn, `\n[Service]\nEnvironment=${value}\n`));
    const containerd = (await showUnits(c, ['containerd.service'], ['Environment', 'NeedDaemonReload'])).get(
      'containerd.service',
    )!;
    expect(containerd.Environment).to.contain(value);
    expect(containerd.NeedDaemonReload).to.equal('no');
    // a file is no unit: nothing restarts for it
    expect(Object.fromEntries(jobStartsPerUnit(starts))).to.deep.equal({});
  });

  it('removed units are disabled and stopped, OS units keep running', async () => {
    const osUnits = [...OS_UNITS, 'systemd-sysctl.service'];
    const before = await invocations(osUnits);
    const starts = await apply(
      withoutUnits(
        osc,
        ['containerd-monitor.service', 'systemd-sysctl.service'],
        ['/opt/bin/health-monitor-containerd'],
      ),
    );
    const state = await showUnits(
      c,
      ['containerd-monitor.service', ...osUnits],
      ['LoadState', 'ActiveState', 'UnitFileState'],
    );
    expect(state.get('containerd-monitor.service')).to.include({
      LoadState: 'not-found',
      ActiveState: 'inactive',
    });
    expect(await c.exec(['test', '-e', '/etc/systemd/system/containerd-monitor.service'])).to.include({
      code: 1,
    });
    expect(await c.exec(['test', '-e', '/opt/bin/health-monitor-containerd'])).to.include({ code: 1 });
    // systemd-sysctl.service has no content in the OSC: the OS's unit, which the agent only configured
    for (const unit of osUnits)
      expect(state.get(unit), unit).to.include({ LoadState: 'loaded', ActiveState: 'active' });
    expect(await invocations(osUnits)).to.deep.equal(before);
    expect(Object.fromEntries(jobStartsPerUnit(starts))).to.deep.equal({});
  });

  it('SIGKILL of the agent at several points of an apply: the node converges, no unit restarts twice', async () => {
    let next = appendToFile(
      osc,
      '/var/lib/valitail/config/config',
      '# real-node: a new valitail configuration\n',
    );
    next = appendToFile(next, '/etc/systemd/containerd.conf', '# real-node: a new logrotate configuration\n');
    next = withMaxPods(next, 130);
    // Each kill point is a barrier that holds the agent (or the restart job it waits for) until
    // the kill, however slowly this machine runs: the agent holds at its armed apply points when
    // its environment names the barrier directory, so it starts once more with that environment
    // (before the apply whose starts are counted).
    const barriers = node!.barriers;
    const persisted = applyPoint('persisted');
    const valitailStop = unitStop('valitail');
    const kubeletStop = unitStop('kubelet');
    await c.run(['systemctl', 'set-environment', AGENT_BARRIERS_ENV]);
    try {
      await restartAgent();
      barriers.arm(persisted, valitailStop, kubeletStop);
      const kills: Kill[] = [];
      const jobInFlight = (job: string) => async () => {
        expect(await runningJobs(c), 'systemd jobs while the stand-in stops').to.include(job);
      };
      const starts = await apply(next, async () => {
        // after the plan is persisted, before any unit command; then in the middle of two restarts
        kills.push(
          await killAgentHeldAt(c, barriers, persisted, 'plan persisted', async () => {
            expect(applyInFlight(c), 'the progress file while held').to.equal(true);
          }),
        );
        kills.push(
          await killAgentHeldAt(
            c,
            barriers,
            valitailStop,
            'valitail restart in flight',
            jobInFlight('valitail.service restart'),
          ),
        );
        kills.push(
          await killAgentHeldAt(
            c,
            barriers,
            kubeletStop,
            'kubelet restart in flight',
            jobInFlight('kubelet.service restart'),
          ),
        );
      });
      expect(kills.map((k) => k.at)).to.have.length(3);
      await expectUnitsAsOscSays(c, osc);
      const perUnit = Object.fromEntries(jobStartsPerUnit(starts.filter((s) => s.unit !== AGENT_UNIT)));
      expect(perUnit, 'InvocationIDs per unit for one apply').to.deep.equal({
        'valitail.service': 1,
        'containerd-logrotate.service': 1,
        'kubelet.service': 1,
      });
      // the agent itself: three kills, each followed by systemd's restart
      const agent = starts.filter((s) => s.unit === AGENT_UNIT).map((s) => s.cause);
      expect(agent).to.deep.equal(['restart-policy', 'restart-policy', 'restart-policy']);
    } finally {
      barriers.release(persisted, valitailStop, kubeletStop);
      await c.run(['systemctl', 'unset-environment', AGENT_BARRIERS_ENV.split('=')[0]!]);
    }
  });

  it('a unit that fails to start is reported (event, metrics, apply result) and the agent keeps running', async () => {
    // the apply before: verified against the node's own systemd after the settle time
    const verified = await eventually(
      'the apply result of the running OSC',
      async () => {
        const [r, running] = await Promise.all([applyReport(), nodeChecksum()]);
        return r !== undefined && r.checksum === running && r.result !== 'Verifying' ? r : undefined;
      },
      60_000,
      500,
    );
    expect(verified, verified.message).to.include({ result: 'Succeeded', reason: APPLY_REASON.applied });
    const agentPid = await agentMainPid(c);
    const errors = await agentMetric(c, 'gardener_node_agent_osc_applies_total{result="error"}');
    const broken = 'real-node-broken.service';
    const next = withUnit(osc, {
      name: broken,
      enable: true,
      command: 'start',
      content:
        '[Unit]\nDescription=Fails to start\n[Service]\nType=oneshot\nExecStart=/bin/false\n[Install]\nWantedBy=multi-user.target\n',
    });
    const checksum = await shoot.publishOsc(next);
    const warning = await eventually(
      'the Warning event about the unit',
      async () =>
        (
          await core.listNamespacedEvent({
            namespace: 'default',
            fieldSelector: `involvedObject.name=${name}`,
          })
        ).items.find(
          (e) => e.type === 'Warning' && e.reason === 'SystemDUnitRestart' && e.message?.includes(broken),
        ),
      60_000,
      500,
    );
    expect(warning.message).to.match(
      /^processed restart of unit real-node-broken.service failed with error /,
    );
    expect(await agentMetric(c, 'gardener_node_agent_osc_applies_total{result="error"}')).to.be.greaterThan(
      errors,
    );
    // the result a rollout gate reads: this checksum failed, a unit command, which unit and why
    const failed = await eventually(
      'the apply result of the broken OSC',
      async () => {
        const r = await applyReport();
        return r?.checksum === checksum ? r : undefined;
      },
      30_000,
      250,
    );
    expect(failed).to.include({ result: 'Failed', reason: APPLY_REASON.unitCommandFailed });
    expect(failed.message).to.contain(`restart ${broken}: `);
    // the agent retries (with backoff) and keeps serving; the Node does not claim the OSC applied
    await sleep(5_000);
    expect(await agentMainPid(c)).to.equal(agentPid);
    expect(await httpGetInside(c, 2751, '/healthz')).to.contain('check passed');
    expect(await nodeChecksum()).to.not.equal(checksum);
    const state = (await showUnits(c, [broken], ['ActiveState', 'UnitFileState'])).get(broken)!;
    expect(state).to.include({ ActiveState: 'failed', UnitFileState: 'enabled' });
    expect(stringifyYaml(next)).to.include(broken);
  });

  it('leaves the host as found: no process, mount, cgroup or /run leftovers, /tmp untouched', async () => {
    const { leader, nspawnPid } = c;
    const { nodeDir } = node!.node;
    await node!.stop();
    node = undefined;
    expect(hostDifferences(host, hostSnapshot(), { name, nodeDir, pids: [leader, nspawnPid] })).to.deep.equal(
      [],
    );
  });
});
