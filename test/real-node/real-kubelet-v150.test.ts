/**
 * A v1.150 pool on a real node with the real kubelet and containerd: the pool's OSC rendered by
 * the v1.150.0 contract (proven byte-exact with gardenlet v1.150.0, test/compat/v1.150), the agent
 * with a per-node identity, and containerd's config.toml owned by the agent as upstream's v1.150.0
 * agent owns it (gardener v1.150.0 pkg/nodeagent/controller/operatingsystemconfig/containerd.go):
 * made from `containerd config default`, patched, written, containerd restarted when it changed.
 * One node boot is shared by the cases (docs/real-node.md#a-v1150-pool).
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../api/index.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { missingControllers } from '../../hack/real-kubelet/cgroup-controllers.js';
import type { Container } from '../../hack/real-node/container.js';
import { type HostSnapshot, hostDifferences, hostSnapshot } from '../../hack/real-node/host-state.js';
import {
  hostSysctl,
  type RealKubeletNode,
  readyCondition,
  startRealKubeletNode,
} from '../../hack/real-node/real-kubelet-node.js';
import { oscSysctlKeys, renderedNodeLabels } from '../../hack/real-node/real-kubelet-osc.js';
import { reapStaleNodes } from '../../hack/real-node/runs.js';
import {
  jobStartsPerUnit,
  journalCursor,
  showUnits,
  unitStartsSince,
} from '../../hack/real-node/systemd-state.js';
import {
  containerdConfigDump,
  containerdConfigFile,
  renderedCgroupDriver,
  tomlAt,
  withContainerdConfig,
} from './containerd-probes.js';
import { expectUnitsAsOscSays } from './unit-expectations.js';

const KUBELET = 'kubelet.service';
const CONTAINERD = 'containerd.service';
const CRI = 'io.containerd.grpc.v1.cri';
const MIRROR_UPSTREAM = 'registry.real-node.test';

describe('a v1.150 pool on a real node with a real kubelet and containerd', function () {
  this.timeout(240_000);
  let r: RealKubeletNode;
  let c: Container;
  let host: HostSnapshot;
  let osc: OperatingSystemConfig;
  let hostSysctls: string[];
  const name = `real-node-v${Date.now().toString(36)}`;

  before(async function () {
    // cold: the kubelet (~2 CPU-min after hack/envtest), the image variant (~1 min); warm: seconds
    this.timeout(30 * 60_000);
    reapStaleNodes();
    host = hostSnapshot();
    r = await startRealKubeletNode({
      name,
      gardenerVersion: 'v1.150.0',
      log: (line) => process.stdout.write(`      ${line}\n`),
    });
    ({ container: c, osc } = r);
    hostSysctls = oscSysctlKeys(osc).map((k) => `${k}=${hostSysctl(k)}`);
    const missing = missingControllers(readFileSync('/sys/fs/cgroup/unified/cgroup.controllers', 'utf8'));
    if (missing.length > 0)
      process.stdout.write(
        `      real kubelet v1.150: no pod runs on this machine: runc cannot create a pod sandbox's cgroup without the cgroup v2 controllers ${missing.join(', ')} (hybrid cgroups), so a pod's survival of a containerd restart is not shown\n`,
      );
  });

  after(async () => {
    await r?.stop();
  });

  /** Unix seconds: when containerd last became active, and when config.toml was last written. */
  async function containerdStartedAfterConfig(): Promise<{ started: number; written: number }> {
    const started = (
      await c.run([
        'systemctl',
        'show',
        CONTAINERD,
        '-p',
        'ActiveEnterTimestamp',
        '--timestamp=unix',
        '--value',
      ])
    ).trim();
    const written = (await c.run(['stat', '-c', '%Y', '/etc/containerd/config.toml'])).trim();
    return { started: Number(started.replace(/^@/, '')), written: Number(written) };
  }

  it('first apply: every unit as the OSC says, the kubelet joins and is Ready, the agent succeeds', async () => {
    const registered = await eventually(
      'the Node Ready',
      async () => {
        const n = await r.readNode();
        return readyCondition(n)?.status === 'True' ? n : undefined;
      },
      300_000,
      200,
    ).catch(async (e: Error) => {
      throw new Error(
        `${e.message}; the kubelet's journal:\n${await r.journalOf(KUBELET)}\nthe agent's:\n${await r.journalOf('gardener-node-agent.service', 60)}`,
      );
    });
    expect(registered.metadata?.labels).to.include(renderedNodeLabels(osc));
    expect(registered.status?.nodeInfo?.kubeletVersion).to.equal(`v${r.version}`);
    expect(registered.status?.nodeInfo?.containerRuntimeVersion).to.match(/^containerd:\/\/1\./);
    const report = await r.verdict(r.firstChecksum);
    expect(report.result, report.message).to.equal('Succeeded');
    expect(await r.nodeChecksum()).to.equal(r.firstChecksum);
    await expectUnitsAsOscSays(c, osc);
  });

  it("containerd runs with the config.toml the agent wrote from containerd's default", async () => {
    const written = await containerdConfigFile(c);
    const dump = await containerdConfigDump(c);
    const driver = renderedCgroupDriver(osc);
    expect(driver).to.equal('systemd');
    for (const config of [written, dump]) {
      expect(tomlAt(config, ['plugins', CRI, 'sandbox_image'])).to.equal(
        osc.spec.criConfig?.containerd?.sandboxImage,
      );
      expect(
        tomlAt(config, ['plugins', CRI, 'containerd', 'runtimes', 'runc', 'options', 'SystemdCgroup']),
      ).to.equal(true);
      expect(tomlAt(config, ['plugins', CRI, 'registry', 'config_path'])).to.equal('/etc/containerd/certs.d');
      expect(tomlAt(config, ['plugins', CRI, 'cni', 'bin_dir'])).to.equal('/opt/cni/bin');
    }
    // containerd lists the files it loaded as its imports, config.toml first; the glob is the file's
    expect(tomlAt(written, ['imports'])).to.deep.equal(['/etc/containerd/conf.d/*.toml']);
    expect(tomlAt(dump, ['imports'])).to.deep.equal(['/etc/containerd/config.toml']);
    // the running containerd was (re)started after the agent wrote its configuration
    const { started, written: at } = await containerdStartedAfterConfig();
    expect(started).to.be.at.least(at);
  });

  it('a containerd configuration change: in config dump and certs.d, containerd restarted once, the kubelet not', async () => {
    const before = await showUnits(c, [CONTAINERD, KUBELET], ['InvocationID']);
    const cursor = await journalCursor(c);
    const next = withContainerdConfig(osc, {
      // a boolean: JSON numbers become TOML floats (as upstream's go-toml v1 writes float64), which
      // containerd 1.6 does not take for its integer fields
      plugins: [{ op: 'add', path: [CRI], values: { enable_unprivileged_icmp: true } }],
      registries: [
        {
          upstream: MIRROR_UPSTREAM,
          server: `https://${MIRROR_UPSTREAM}`,
          hosts: [{ url: 'https://mirror.real-node.test', capabilities: ['pull', 'resolve'] }],
          readinessProbe: false,
        },
      ],
    });
    const report = await r.verdict(await r.shoot.publishOsc(next));
    expect(report.result, report.message).to.equal('Succeeded');
    const starts = await unitStartsSince(c, cursor);
    expect(jobStartsPerUnit(starts).get(CONTAINERD), 'containerd restarts').to.equal(1);
    expect(
      starts.filter((s) => s.unit === KUBELET),
      'kubelet starts',
    ).to.deep.equal([]);
    const after = await showUnits(c, [CONTAINERD, KUBELET], ['InvocationID']);
    expect(after.get(CONTAINERD)!.InvocationID).to.not.equal(before.get(CONTAINERD)!.InvocationID);
    expect(after.get(KUBELET)!.InvocationID).to.equal(before.get(KUBELET)!.InvocationID);
    const dump = await containerdConfigDump(c);
    expect(tomlAt(dump, ['plugins', CRI, 'enable_unprivileged_icmp'])).to.equal(true);
    const hosts = await c.run(['cat', `/etc/containerd/certs.d/${MIRROR_UPSTREAM}/hosts.toml`]);
    expect(hosts).to.contain(`server = "https://${MIRROR_UPSTREAM}"`);
    expect(hosts).to.contain('[host."https://mirror.real-node.test"]');
    expect(readyCondition(await r.readNode())?.status).to.equal('True');
    osc = next;
  });

  it("written but not in effect: a conf.d import that overrides containerd's cgroup driver fails the apply, named", async () => {
    // the OSC's own file, as an operator's or an extension's drop-in would be: containerd 1.x takes an
    // imported plugin table whole, so the CRI plugin's other fields fall back to their defaults too
    const cursor = await journalCursor(c);
    const overridden = structuredClone(osc);
    overridden.spec.files = [
      ...(overridden.spec.files ?? []),
      {
        path: '/etc/containerd/conf.d/10-cgroupfs.toml',
        permissions: 0o644,
        content: {
          inline: {
            encoding: '',
            data: `[plugins."${CRI}".containerd.runtimes.runc.options]\n  SystemdCgroup = false\n`,
          },
        },
      },
    ];
    const report = await r.verdict(await r.shoot.publishOsc(overridden));
    expect(report).to.include({ result: 'Failed', reason: 'NotInEffect' });
    expect(report.message).to.contain(
      `containerd config dump plugins."${CRI}".containerd.runtimes.runc.options.SystemdCgroup is false, rendered true`,
    );
    // the least-disruption defaults restart containerd for a file under /etc/containerd once, so the
    // dump judged is what the restarted daemon reads (docs/least-disruption.md)
    expect(jobStartsPerUnit(await unitStartsSince(c, cursor)).get(CONTAINERD) ?? 0).to.equal(1);
    // the file goes with the OSC that had it: in effect again
    const good = await r.verdict(await r.shoot.publishOsc(osc));
    expect(good.result, good.message).to.equal('Succeeded');
  });

  it('leaves the host as found: no process, mount, cgroup, veth or /run leftovers, sysctls unchanged', async () => {
    const { leader, nspawnPid } = c;
    const { nodeDir } = r.node.node;
    await r.stopNode();
    expect(hostDifferences(host, hostSnapshot(), { name, nodeDir, pids: [leader, nspawnPid] })).to.deep.equal(
      [],
    );
    expect(oscSysctlKeys(osc).map((k) => `${k}=${hostSysctl(k)}`)).to.deep.equal(hostSysctls);
    expect(readFileSync('/proc/net/dev', 'utf8')).to.not.match(/eth0-peer|cni0/);
  });
});
