/**
 * Drift (docs/node-agent.md#drift) on a real node: the agent runs with a short
 * `--drift-check-interval` and `--disruption-policy defaults`; somebody edits the kubelet
 * configuration by hand, deletes the sysctl file, disables a unit and loosens a credential's mode.
 * The NodeConfigurationDrift condition names each within a bound measured here (edit → condition,
 * from a watch on the Node), the repair restores bytes, modes and enablement and restarts only the
 * units owning the repaired files, and the next check finds nothing. A path a policy file says to
 * Report stays drifted and reported.
 * Prints one line per measured fact (`real node drift: …`).
 */
import { type V1Node, type V1NodeCondition, Watch } from '@kubernetes/client-node';
import { expect } from 'chai';
import { DRIFT_CONDITION_REASON, DRIFT_CONDITION_TYPE, sha256Hex, stringifyYaml } from '../../api/index.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { AgentNode, changedByJobs, OS_UNITS } from '../../hack/real-node/agent-node.js';
import { AGENT_UNIT } from '../../hack/real-node/agent-probes.js';
import { unitNames } from '../../hack/real-node/osc-edits.js';
import {
  jobStartsPerUnit,
  journalCursor,
  showUnits,
  unitStartsSince,
} from '../../hack/real-node/systemd-state.js';
import {
  DISRUPTION_POLICY_API_VERSION,
  DISRUPTION_POLICY_KIND,
} from '../../node-agent/planner/disruption-policy.js';

const INTERVAL_S = 5;
const KUBELET_CONFIG = '/var/lib/kubelet/config/kubelet';
const SYSCTL_FILE = '/etc/sysctl.d/99-k8s-general.conf';
const DISABLED_UNIT = 'containerd-monitor.service';
/** The agent's configuration: its API server and CA, written 0600 by the OSC. */
const CREDENTIAL = '/var/lib/gardener-node-agent/config.yaml';
/** A file the Report case's policy names. */
const REPORTED = '/var/lib/valitail/config/config';

const say = (fact: string) => console.log(`      real node drift: ${fact}`);

/** Every NodeConfigurationDrift condition the Node carried, with when this process saw it. */
class ConditionLog {
  readonly seen: { at: number; condition: V1NodeCondition }[] = [];
  private abort: AbortController | undefined;

  async start(n: AgentNode): Promise<void> {
    const watch = new Watch(n.envtest.kubeConfig);
    this.abort = await watch.watch(
      '/api/v1/nodes',
      { fieldSelector: `metadata.name=${n.name}` },
      (_phase, node: V1Node) => {
        const c = node.status?.conditions?.find((x) => x.type === DRIFT_CONDITION_TYPE);
        const last = this.seen.at(-1)?.condition;
        if (c && (c.message !== last?.message || c.status !== last?.status))
          this.seen.push({ at: Date.now(), condition: c });
      },
      () => undefined,
    );
  }

  stop(): void {
    this.abort?.abort();
  }

  /** The first time a condition after `since` named `what`. */
  firstNaming(what: string, since: number): number | undefined {
    return this.seen.find((s) => s.at >= since && s.condition.message?.includes(what))?.at;
  }

  last(): V1NodeCondition | undefined {
    return this.seen.at(-1)?.condition;
  }
}

describe('a real node: drift is reported on the Node and repaired by the default policy', function () {
  this.timeout(300_000);
  const n = new AgentNode();
  const conditions = new ConditionLog();

  before(async function () {
    this.timeout(25 * 60_000);
    await n.start('real-node-drift', [
      '--disruption-policy',
      'defaults',
      '--drift-check-interval',
      `${INTERVAL_S}s`,
    ]);
    await conditions.start(n);
  });

  after(async () => {
    conditions.stop();
    await n.stop();
  });

  const allUnits = () => [...new Set([...unitNames(n.osc), ...OS_UNITS])];
  const inlineBytes = (path: string) => {
    const inline = n.osc.spec.files?.find((f) => f.path === path)?.content.inline;
    if (!inline) throw new Error(`no inline file ${path}`);
    return inline.encoding === 'b64' ? Buffer.from(inline.data, 'base64') : Buffer.from(inline.data);
  };
  const fileState = async (path: string) => {
    const r = await n.c.exec(['sh', '-c', 'stat -c %a "$1" && sha256sum < "$1"', 'sh', path]);
    if (r.code !== 0) return { mode: 'absent', sha: 'absent' };
    const [mode, sum] = r.stdout.trim().split('\n');
    return { mode: mode!, sha: sum!.split(' ')[0]! };
  };
  const isEnabled = async (unit: string) => (await n.c.exec(['systemctl', 'is-enabled', unit])).stdout.trim();

  it('the first check finds the applied node as it was given: NoDrift', async () => {
    const c = await eventually('the first drift check on the Node', () => conditions.last(), 60_000, 250);
    expect(c, c.message).to.include({ status: 'False', reason: DRIFT_CONDITION_REASON.none });
  });

  it('four drifts by hand: named on the Node within the bound, repaired, only the owning units restarted', async () => {
    const all = allUnits();
    const before = await n.invocations(all);
    const wanted = {
      kubelet: await fileState(KUBELET_CONFIG),
      sysctl: await fileState(SYSCTL_FILE),
      credential: await fileState(CREDENTIAL),
    };
    expect(wanted.kubelet.sha).to.equal(sha256Hex(inlineBytes(KUBELET_CONFIG)));
    expect(wanted.credential.mode).to.equal('600');
    expect(await isEnabled(DISABLED_UNIT)).to.equal('enabled');

    const cursor = await journalCursor(n.c);
    // one drift at a time: a drift made while a repair runs can be undone by it before any check
    // names it (measured: with the four edits in one go, the chmod was never named and the node
    // ended with mode 0600). Each is judged from its edit to the condition naming it, then to a
    // check that finds nothing.
    const edits: { what: string; kind: string; command: string }[] = [
      {
        what: KUBELET_CONFIG,
        kind: 'content',
        command: `sed -i 's/^maxPods: .*/maxPods: 42/' ${KUBELET_CONFIG}`,
      },
      { what: SYSCTL_FILE, kind: 'missing', command: `rm ${SYSCTL_FILE}` },
      { what: DISABLED_UNIT, kind: 'enablement', command: `systemctl disable --quiet ${DISABLED_UNIT}` },
      { what: CREDENTIAL, kind: 'mode', command: `chmod 0644 ${CREDENTIAL}` },
    ];
    const bounds: number[] = [];
    for (const { what, kind, command } of edits) {
      const editedAt = Date.now();
      await n.c.run(['sh', '-c', command]);
      const namedAt = await eventually(
        `the NodeConfigurationDrift condition to name ${what}: ${kind}`,
        () => conditions.firstNaming(`${what}: ${kind}`, editedAt),
        2 * INTERVAL_S * 1000 + 60_000,
        50,
      ).catch(async (e: Error) => {
        const seen = conditions.seen.map((s) => `${s.condition.reason}: ${s.condition.message}`).join('\n');
        const journal = await n.c.exec([
          'journalctl',
          '--no-pager',
          '-n',
          '40',
          '-u',
          AGENT_UNIT,
          '-o',
          'cat',
        ]);
        throw new Error(
          `${e.message}; the conditions seen:\n${seen}\nthe agent's journal:\n${journal.stdout}`,
        );
      });
      const named = conditions.seen.find((s) => s.at === namedAt)!.condition;
      await eventually(
        'a check after the repair that finds nothing',
        () => {
          const last = conditions.seen.at(-1);
          return last && last.at > namedAt && last.condition.reason === DRIFT_CONDITION_REASON.none;
        },
        2 * INTERVAL_S * 1000 + 60_000,
        100,
      );
      const clean = conditions.seen.at(-1)!;
      bounds.push((namedAt - editedAt) / 1000);
      say(
        `${what}: ${kind}: named by NodeConfigurationDrift (${named.status}/${named.reason}) ${((namedAt - editedAt) / 1000).toFixed(2)} s after the edit; the next check finds nothing (${clean.condition.status}/${clean.condition.reason}) after ${((clean.at - editedAt) / 1000).toFixed(2)} s`,
      );
    }
    const bound = Math.max(...bounds);
    say(
      `edit → condition: at most ${bound.toFixed(2)} s over the four (--drift-check-interval ${INTERVAL_S}s)`,
    );
    expect(bound, 'edit → condition, s').to.be.lessThan(INTERVAL_S + 30);

    // bytes, modes and enablement as the OSC says
    expect(await fileState(KUBELET_CONFIG)).to.deep.equal(wanted.kubelet);
    expect(await fileState(SYSCTL_FILE)).to.deep.equal(wanted.sysctl);
    expect(await fileState(CREDENTIAL)).to.deep.equal(wanted.credential);
    expect(await isEnabled(DISABLED_UNIT)).to.equal('enabled');

    // only the units owning a repaired file's content restarted: kubelet for its configuration,
    // systemd-sysctl for the sysctl file; a mode or an enablement is restored without a restart
    const after = await n.invocations(all);
    const starts = await unitStartsSince(n.c, cursor);
    const restarted = changedByJobs(before, after, starts);
    expect(Object.fromEntries(jobStartsPerUnit(starts))).to.deep.equal({
      'kubelet.service': 1,
      'systemd-sysctl.service': 1,
    });
    expect(restarted).to.deep.equal(['kubelet.service', 'systemd-sysctl.service']);
    const monitor = (await showUnits(n.c, [DISABLED_UNIT], ['ActiveState'])).get(DISABLED_UNIT)!;
    expect(monitor.ActiveState).to.equal('active');
    say(
      `repair: bytes, modes and enablement restored; restart jobs ${JSON.stringify(Object.fromEntries(jobStartsPerUnit(starts)))}, every other InvocationID kept`,
    );
  });

  it('a path the policy says to Report stays drifted and is reported, not repaired', async () => {
    const dir = '/var/lib/real-node-policy';
    const policy = `${dir}/disruption-policy.yaml`;
    await n.c.run(['mkdir', '-p', dir]);
    await n.writeInside(
      policy,
      stringifyYaml({
        apiVersion: DISRUPTION_POLICY_API_VERSION,
        kind: DISRUPTION_POLICY_KIND,
        paths: [],
        units: [],
        drift: [{ path: REPORTED, action: 'Report', reason: 'real node: report only' }],
      }),
    );
    await n.restartAgentWith(['--disruption-policy', policy, '--drift-check-interval', `${INTERVAL_S}s`]);
    const before = await n.invocations(['valitail.service']);
    const edited = '# real node: edited by hand, reported only\n';
    const editedAt = Date.now();
    await n.c.run(['sh', '-c', 'printf %s "$2" >> "$1"', 'sh', REPORTED, edited]);
    const namedAt = await eventually(
      `the NodeConfigurationDrift condition to report ${REPORTED}`,
      () => {
        const s = conditions.seen.find(
          (x) => x.at >= editedAt && x.condition.message?.includes(`Report: file ${REPORTED}: content`),
        );
        return s?.at;
      },
      2 * INTERVAL_S * 1000 + 60_000,
      50,
    ).catch(async (e: Error) => {
      const seen = conditions.seen.map((s) => `${s.condition.reason}: ${s.condition.message}`).join('\n');
      const journal = await n.c.exec(['journalctl', '--no-pager', '-n', '30', '-u', AGENT_UNIT, '-o', 'cat']);
      throw new Error(`${e.message}; the conditions seen:\n${seen}\nthe agent's journal:\n${journal.stdout}`);
    });
    const named = conditions.seen.find((s) => s.at === namedAt)!.condition;
    expect(named).to.include({ status: 'True', reason: DRIFT_CONDITION_REASON.reported });
    // two more periodic checks: still drifted, still reported, valitail untouched
    await sleep(2 * INTERVAL_S * 1000 + 1_000);
    expect((await n.c.run(['cat', REPORTED])).endsWith(edited)).to.equal(true);
    expect(conditions.last()).to.include({ status: 'True', reason: DRIFT_CONDITION_REASON.reported });
    expect(await n.invocations(['valitail.service'])).to.deep.equal(before);
    say(
      `${REPORTED} under a Report rule: True/DriftReported ${((namedAt - editedAt) / 1000).toFixed(2)} s after the edit; ${2 * INTERVAL_S + 1} s later still drifted and reported, valitail.service not restarted`,
    );
  });

  it('leaves the host as found', async () => {
    conditions.stop();
    expect(await n.hostLeftovers()).to.deep.equal([]);
  });
});
