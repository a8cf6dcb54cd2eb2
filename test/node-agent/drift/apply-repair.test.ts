import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { HostRoot } from '../../../node-agent/applier/host-root.js';
import { readProgress } from '../../../node-agent/applier/progress-file.js';
import { EMPTY_POLICY } from '../../../node-agent/planner/disruption-policy.js';
import { driftKey } from '../../../node-agent/planner/drift.js';
import { applyTo } from '../support/apply-fixture.js';
import { useTempDirs } from '../support/harness.js';
import { driftOsc, KUBELET_UNIT } from './drift-fixture.js';

describe('node-agent drift: apply of the same OSC repairs drift', () => {
  const tempDir = useTempDirs();
  let root: string;
  let images: string;
  let systemd: MemorySystemd;
  const at = (path: string) => join(root, path);
  const KUBELET_CONFIG = 'var/lib/kubelet/config/kubelet';

  /** The apply again, with drift repair; `ops` are the systemd calls of this apply only. */
  async function reapply(extra: Parameters<typeof applyTo>[3] = {}) {
    const before = systemd.ops.length;
    const run = await applyTo(root, driftOsc(), images, { systemd, drift: 'repair', ...extra });
    return { ...run, ops: run.ops.slice(before) };
  }

  beforeEach(async () => {
    root = tempDir('gna-drift-');
    images = tempDir('gna-images-');
    systemd = new MemorySystemd();
    await applyTo(root, driftOsc(), images, { systemd });
  });

  it('without drift repair, an edited file stays as it is (up to date, as before)', async () => {
    writeFileSync(at(KUBELET_CONFIG), 'edited\n');
    const run = await applyTo(root, driftOsc(), images, { systemd });
    expect(run.result.outcome).to.equal('up-to-date');
    expect(readFileSync(at(KUBELET_CONFIG), 'utf8')).to.equal('edited\n');
  });

  it('an edited kubelet config: rewritten, only kubelet restarts; a second pass finds nothing', async () => {
    writeFileSync(at(KUBELET_CONFIG), 'edited\n');
    const run = await reapply();
    expect(run.result.outcome).to.equal('applied');
    expect(run.result.drift?.map((d) => `${driftKey(d.drift)} ${d.action}`)).to.deep.equal([
      `file /${KUBELET_CONFIG} content Repair`,
    ]);
    expect(readFileSync(at(KUBELET_CONFIG), 'utf8')).to.contain('maxPods: 110');
    expect(run.ops).to.deep.equal(['enable kubelet.service', 'daemon-reload', 'restart kubelet.service']);
    const again = await reapply();
    expect(again.result.outcome).to.equal('up-to-date');
    expect(again.result.drift).to.deep.equal([]);
    expect(again.ops).to.deep.equal([]);
  });

  it('least disruption decides what a repair restarts: a comment in the unit file restarts nothing', async () => {
    writeFileSync(at('etc/systemd/system/kubelet.service'), `# mine\n${KUBELET_UNIT}`);
    const run = await reapply({ disruptionPolicy: EMPTY_POLICY });
    expect(readFileSync(at('etc/systemd/system/kubelet.service'), 'utf8')).to.equal(KUBELET_UNIT);
    expect(run.ops).to.deep.equal(['enable kubelet.service', 'daemon-reload']);
  });

  it('a deleted sysctl file restarts systemd-sysctl only; a chmod and a disable restart nothing', async () => {
    rmSync(at('etc/sysctl.d/99-k8s-general.conf'));
    chmodSync(at('var/lib/kubelet/ca.crt'), 0o644);
    await systemd.disable(['containerd.service']);
    const run = await reapply();
    expect(statSync(at('var/lib/kubelet/ca.crt')).mode & 0o777).to.equal(0o600);
    expect(readFileSync(at('etc/sysctl.d/99-k8s-general.conf'), 'utf8')).to.contain('max_map_count');
    expect(run.ops).to.deep.equal([
      'enable systemd-sysctl.service',
      'enable containerd.service',
      'daemon-reload',
      'restart systemd-sysctl.service',
    ]);
    expect((await reapply()).result.drift).to.deep.equal([]);
  });

  it("reports what the policy leaves (the OS extension's file, an extra drop-in) and changes nothing", async () => {
    writeFileSync(at('etc/motd'), 'changed\n');
    writeFileSync(at('etc/systemd/system/containerd.service.d/99-mine.conf'), '[Service]\n');
    const run = await reapply();
    expect(run.result.outcome).to.equal('up-to-date');
    expect(run.result.drift?.map((d) => d.action)).to.deep.equal(['Report', 'Report']);
    expect(readFileSync(at('etc/motd'), 'utf8')).to.equal('changed\n');
  });

  it('a policy repairs an extra drop-in: removed, its unit restarted', async () => {
    writeFileSync(at('etc/systemd/system/containerd.service.d/99-mine.conf'), '[Service]\nEnvironment=B=2\n');
    const policy = { ...EMPTY_POLICY, drift: [{ unit: 'containerd.service', action: 'Repair' as const }] };
    const run = await reapply({ disruptionPolicy: policy });
    expect(() => statSync(at('etc/systemd/system/containerd.service.d/99-mine.conf'))).to.throw(/ENOENT/);
    expect(run.ops).to.include('restart containerd.service');
    expect(run.ops).not.to.include('restart kubelet.service');
  });

  it('report-only (a rollout not yet permitting this node): listed, not repaired', async () => {
    writeFileSync(at(KUBELET_CONFIG), 'edited\n');
    const run = await reapply({ drift: 'report-only' });
    expect(run.result.outcome).to.equal('up-to-date');
    expect(run.result.drift).to.have.length(1);
    expect(readFileSync(at(KUBELET_CONFIG), 'utf8')).to.equal('edited\n');
  });

  it('goes through the crash journal: a repair cut off resumes where it stopped', async () => {
    writeFileSync(at(KUBELET_CONFIG), 'edited\n');
    const crash = new Error('crash');
    await reapply({
      crashPoint: (where) => {
        if (where === 'checked-off write-file /var/lib/kubelet/config/kubelet') throw crash;
      },
    }).then(
      () => expect.fail('the crash point was not reached'),
      (e) => expect(e).to.equal(crash),
    );
    expect((await readProgress(new HostRoot(root)))?.completed).to.deep.equal([
      'write-file /var/lib/kubelet/config/kubelet',
    ]);
    const resumed = await reapply();
    expect(resumed.result.resumed).to.equal(true);
    expect(resumed.ops).to.deep.equal(['enable kubelet.service', 'daemon-reload', 'restart kubelet.service']);
  });
});
