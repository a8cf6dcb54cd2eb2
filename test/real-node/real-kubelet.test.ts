/**
 * A real node that runs the real components of its pool: the kubelet of the pool's Kubernetes
 * version built from source (hack/real-kubelet/build.sh), Debian's containerd and runc, and a
 * locally built pause image (hack/real-kubelet/image.sh). The kubelet joins as on a cloud machine
 * (bootstrap token → CSR, approved and signed as the shoot's control plane would) and the agent
 * checks after each apply that what it rendered is what runs (docs/real-node.md#a-real-kubelet).
 * One node boot is shared by the cases, which follow each other as gardenlet's changes would.
 */
import { readFileSync } from 'node:fs';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../api/index.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { KUBELET_CLIENT_SIGNER } from '../../hack/real-kubelet/kubelet-csr-signer.js';
import { agentMainPid, httpGetInside } from '../../hack/real-node/agent-probes.js';
import type { Container } from '../../hack/real-node/container.js';
import { type HostSnapshot, hostDifferences, hostSnapshot } from '../../hack/real-node/host-state.js';
import { withMaxPods } from '../../hack/real-node/osc-edits.js';
import {
  hostSysctl,
  type RealKubeletNode,
  readyCondition as ready,
  startRealKubeletNode,
} from '../../hack/real-node/real-kubelet-node.js';
import { oscSysctlKeys, renderedNodeLabels } from '../../hack/real-node/real-kubelet-osc.js';
import { kubeletConfigz, withKubeletFields } from '../../hack/real-node/real-kubelet-probes.js';
import { reapStaleNodes } from '../../hack/real-node/runs.js';
import {
  jobStartsPerUnit,
  journalCursor,
  showUnits,
  unitStartsSince,
} from '../../hack/real-node/systemd-state.js';

const KUBELET = 'kubelet.service';

describe('a real node with a real kubelet and containerd', function () {
  this.timeout(240_000);
  let r: RealKubeletNode;
  let c: Container;
  let host: HostSnapshot;
  let osc: OperatingSystemConfig;
  let version: string;
  let readyAfterS = Number.NaN;
  let hostSysctls: string[];
  const name = `real-node-k${Date.now().toString(36)}`;

  before(async function () {
    // cold: the kubelet (~2 CPU-min after hack/envtest), the image variant (~1 min); warm: seconds
    this.timeout(30 * 60_000);
    reapStaleNodes();
    host = hostSnapshot();
    r = await startRealKubeletNode({ name, log: (line) => process.stdout.write(`      ${line}\n`) });
    ({ container: c, osc, version } = r);
    hostSysctls = oscSysctlKeys(osc).map((k) => `${k}=${hostSysctl(k)}`);
  });

  after(async () => {
    await r?.stop();
  });

  const readNode = () => r.readNode();
  const nodeChecksum = () => r.nodeChecksum();
  const journalOf = (unit: string, lines?: number) => r.journalOf(unit, lines);
  const verdict = (checksum: string, timeoutMs?: number) => r.verdict(checksum, timeoutMs);

  it('joins with a bootstrap token and is Ready with the labels we render, kubelet and containerd real', async () => {
    const kubeletStart = await eventually(
      'the agent to start the kubelet',
      async () => {
        const p = (await showUnits(c, [KUBELET], ['ActiveEnterTimestampMonotonic'])).get(KUBELET)!;
        return Number(p.ActiveEnterTimestampMonotonic) || undefined;
      },
      120_000,
      200,
    );
    const registered = await eventually(
      'the Node Ready',
      async () => {
        const n = await readNode();
        return ready(n)?.status === 'True' ? n : undefined;
      },
      240_000,
      200,
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}; the kubelet's journal:\n${await journalOf(KUBELET)}`);
    });
    const nowMonotonic = Number((await c.run(['cat', '/proc/uptime'])).split(' ')[0]) * 1e6;
    const readyAt = Date.parse(String(ready(registered)!.lastTransitionTime));
    readyAfterS = (readyAt - (Date.now() - (nowMonotonic - kubeletStart) / 1000)) / 1000;

    expect(registered.metadata?.labels).to.include(renderedNodeLabels(osc));
    expect(registered.status?.nodeInfo?.kubeletVersion).to.equal(`v${version}`);
    expect(registered.status?.nodeInfo?.containerRuntimeVersion).to.match(/^containerd:\/\/1\./);
    // the kubelet's client certificate came through the bootstrap token's CSR
    expect(r.signer.signed.some((s) => s.startsWith(KUBELET_CLIENT_SIGNER))).to.equal(true);
    const kubeconfig = readFileSync(c.path('/var/lib/kubelet/kubeconfig-real'), 'utf8');
    expect(kubeconfig).to.contain('/var/lib/kubelet/pki/kubelet-client-current.pem');

    // the agent applied the OSC on the Node the kubelet registered, and found it in effect
    const report = await verdict(r.firstChecksum);
    expect(report.result, report.message).to.equal('Succeeded');
    expect(await nodeChecksum()).to.equal(r.firstChecksum);
  });

  it('runs the agent from /opt/bin on a disk file system: V8 maps its built-in code from the file', async () => {
    // in the overlay root (image + tmpfs) V8 cannot match the file to its mapping and copies the
    // code instead: 1.6 MB of anonymous memory a cloud machine's agent does not hold
    // (hack/real-node/node-under-test.ts, provisionNode)
    const pid = await agentMainPid(c);
    expect(pid).to.be.above(0);
    const maps = (await c.run(['cat', `/proc/${pid}/maps`])).split('\n');
    const anonymousCode = maps.filter((line) => {
      const m = /^([0-9a-f]+)-([0-9a-f]+) r-xp 0+ 00:00 0\s*$/.exec(line);
      return m !== null && Number.parseInt(m[2]!, 16) - Number.parseInt(m[1]!, 16) >= 1024 * 1024;
    });
    expect(anonymousCode, maps.join('\n')).to.deep.equal([]);
    // Node's executable is loaded below 4 GiB; V8's code range lies far above it
    const remapped = maps.filter(
      (l) => / r-xp .* \/opt\/bin\/gardener-node-agent$/.test(l) && Number.parseInt(l, 16) >= 2 ** 32,
    );
    expect(remapped, maps.join('\n')).to.have.length(1);
  });

  it('a maxPods change is in effect in the kubelet configz after exactly one kubelet restart', async () => {
    const cursor = await journalCursor(c);
    const next = withMaxPods(osc, 111);
    const checksum = await r.shoot.publishOsc(next);
    const report = await verdict(checksum);
    expect(report.result, report.message).to.equal('Succeeded');
    const starts = await unitStartsSince(c, cursor);
    expect(jobStartsPerUnit(starts).get(KUBELET)).to.equal(1);
    expect(starts.filter((s) => s.unit === KUBELET)).to.have.length(1);
    const configz = await eventually(
      'the kubelet /configz',
      () => kubeletConfigz(c, r.envtest),
      60_000,
      1000,
    );
    expect(configz.maxPods).to.equal(111);
    osc = next;
  });

  it('a kubelet restart: /healthz, Lease and Ready again, measured', async () => {
    const before = (await showUnits(c, [KUBELET], ['InvocationID'])).get(KUBELET)!.InvocationID;
    const leases = r.envtest.kubeConfig.makeApiClient(CoordinationV1Api);
    const t0 = Date.now();
    await c.run(['systemctl', 'restart', KUBELET]);
    let healthzS = Number.NaN;
    let leaseS = Number.NaN;
    let notReadySince: number | undefined;
    let notReadyMs = 0;
    // the new kubelet posts its first node status about 10-20 s after it starts: watch 30 s
    while (Date.now() - t0 < 30_000 || Number.isNaN(healthzS) || Number.isNaN(leaseS)) {
      const now = Date.now();
      if (now - t0 > 90_000)
        throw new Error('the restarted kubelet did not serve /healthz and renew its Lease');
      if (Number.isNaN(healthzS) && (await httpGetInside(c, 10248, '/healthz').catch(() => '')) === 'ok')
        healthzS = (Date.now() - t0) / 1000;
      if (Number.isNaN(leaseS)) {
        const lease = await leases
          .readNamespacedLease({ name, namespace: 'kube-node-lease' })
          .catch(() => undefined);
        const renewed = lease?.spec?.renewTime
          ? new Date(lease.spec.renewTime as unknown as string).getTime()
          : 0;
        if (renewed >= t0) leaseS = (Date.now() - t0) / 1000;
      }
      if (ready(await readNode())?.status !== 'True') notReadySince ??= now;
      else if (notReadySince !== undefined) {
        notReadyMs += now - notReadySince;
        notReadySince = undefined;
      }
      await sleep(100);
    }
    if (notReadySince !== undefined) notReadyMs += Date.now() - notReadySince;
    const after = (await showUnits(c, [KUBELET], ['InvocationID'])).get(KUBELET)!;
    expect(after.InvocationID).to.not.equal(before);
    expect(ready(await readNode())?.status).to.equal('True');
    process.stdout.write(
      `      real kubelet v${version}: Ready after ${readyAfterS.toFixed(1)} s; ` +
        `restart: healthz ${healthzS.toFixed(2)} s, NotReady ${(notReadyMs / 1000).toFixed(1)} s ` +
        `(Lease renewed after ${leaseS.toFixed(2)} s)\n`,
    );
  });

  it('a kubelet configuration the kubelet rejects is Failed with the kubelet reason', async () => {
    const broken = withMaxPods(osc, -1);
    const checksum = await r.shoot.publishOsc(broken);
    const report = await verdict(checksum);
    expect(report.result).to.equal('Failed');
    expect(report.message).to.contain('maxPods (--max-pods) -1 must not be a negative number');
    // back to a configuration the kubelet takes, as the operator would roll forward
    const fixed = withMaxPods(osc, 112);
    const good = await r.shoot.publishOsc(fixed);
    expect((await verdict(good)).result).to.equal('Succeeded');
    osc = fixed;
  });

  it('written but not in effect: a field the kubelet flag overrides fails the apply, named', async () => {
    // the rendered --container-runtime-endpoint flag wins over the file: the kubelet runs, healthy,
    // with another value than the file says
    const shadowed = withKubeletFields(osc, {
      containerRuntimeEndpoint: 'unix:///run/containerd/other.sock',
    });
    const report = await verdict(await r.shoot.publishOsc(shadowed));
    expect(report).to.include({ result: 'Failed', reason: 'NotInEffect' });
    expect(report.message).to.contain(
      'kubelet configz containerRuntimeEndpoint is "unix:///run/containerd/containerd.sock", rendered "unix:///run/containerd/other.sock"',
    );
    expect(
      (await readNode())?.metadata?.annotations?.['node-configuration.gardener.cloud/apply-reason'],
    ).to.equal('NotInEffect');
    const good = await r.shoot.publishOsc(osc);
    expect((await verdict(good)).result).to.equal('Succeeded');
  });

  it('leaves the host as found: no process, mount, cgroup, veth or /run leftovers, sysctls unchanged', async () => {
    const { leader, nspawnPid } = c;
    const { nodeDir } = r.node.node;
    await r.stopNode();
    expect(hostDifferences(host, hostSnapshot(), { name, nodeDir, pids: [leader, nspawnPid] })).to.deep.equal(
      [],
    );
    // the node's tunables were files bind-mounted inside it: the machine's own values never changed
    expect(oscSysctlKeys(osc).map((k) => `${k}=${hostSysctl(k)}`)).to.deep.equal(hostSysctls);
    expect(readFileSync('/proc/net/dev', 'utf8')).to.not.match(/eth0-peer|cni0/);
  });
});
