import { chmodSync, chownSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { adopt } from '../../../node-agent/applier/drift-adopted.js';
import { detectDrift } from '../../../node-agent/applier/drift-detect.js';
import { DRIFT_EXCLUSIONS } from '../../../node-agent/applier/drift-exclusions.js';
import { HostRoot } from '../../../node-agent/applier/host-root.js';
import { type Drift, driftKey } from '../../../node-agent/planner/drift.js';
import { applyTo } from '../support/apply-fixture.js';
import { useTempDirs } from '../support/harness.js';
import { driftOsc, file } from './drift-fixture.js';

describe('node-agent drift: detection on a temp root', () => {
  const tempDir = useTempDirs();
  let root: string;
  let systemd: MemorySystemd;
  const at = (path: string) => join(root, path);
  const detect = () => detectDrift({ host: new HostRoot(root), osc: driftOsc(), systemd });
  const keys = (drifts: readonly Drift[]) => drifts.map(driftKey);

  beforeEach(async () => {
    root = tempDir('gna-drift-');
    systemd = new MemorySystemd();
    await applyTo(root, driftOsc(), tempDir('gna-images-'), { systemd });
  });

  it('finds nothing right after an apply', async () => {
    expect(await detect()).to.deep.equal([]);
  });

  it('an edited file: its content, with the node bytes for the repair', async () => {
    writeFileSync(at('var/lib/kubelet/config/kubelet'), 'kind: KubeletConfiguration\nmaxPods: 250\n');
    const [d, ...rest] = await detect();
    expect(rest).to.deep.equal([]);
    expect(d).to.include({
      object: 'file',
      kind: 'content',
      path: '/var/lib/kubelet/config/kubelet',
      origin: 'rendered',
    });
    expect(Buffer.from(d?.actualContent ?? '', 'base64').toString()).to.contain('maxPods: 250');
  });

  it('a deleted file, a chmod, a chown, a directory in place of a file', async () => {
    rmSync(at('etc/sysctl.d/99-k8s-general.conf'));
    chmodSync(at('var/lib/kubelet/ca.crt'), 0o644);
    chownSync(at('var/lib/kubelet/config/kubelet'), 1000, 1000);
    rmSync(at('etc/motd'));
    mkdirSync(at('etc/motd'));
    const drifts = await detect();
    expect(keys(drifts)).to.deep.equal([
      'file /var/lib/kubelet/config/kubelet owner',
      'file /etc/sysctl.d/99-k8s-general.conf missing',
      'file /var/lib/kubelet/ca.crt mode',
      'file /etc/motd type',
    ]);
    expect(drifts[2]).to.include({ expected: '0600', actual: '0644' });
    expect(drifts[3]).to.include({ origin: 'extension', actual: 'directory' });
  });

  it('unit files and drop-ins: edited, removed, an extra drop-in, a mode', async () => {
    writeFileSync(at('etc/systemd/system/kubelet.service'), '[Service]\nExecStart=/bin/true\n');
    rmSync(at('etc/systemd/system/containerd.service.d/30-env.conf'));
    writeFileSync(at('etc/systemd/system/containerd.service.d/99-mine.conf'), '[Service]\n');
    expect(keys(await detect())).to.deep.equal([
      'unit-file /etc/systemd/system/kubelet.service content',
      'drop-in /etc/systemd/system/containerd.service.d/30-env.conf missing',
      'drop-in /etc/systemd/system/containerd.service.d/99-mine.conf extra-drop-in',
    ]);
    writeFileSync(at('etc/systemd/system/containerd.service.d/30-env.conf'), '[Service]\nEnvironment=A=1\n');
    chmodSync(at('etc/systemd/system/containerd.service.d/30-env.conf'), 0o644);
    rmSync(at('etc/systemd/system/containerd.service.d/99-mine.conf'));
    writeFileSync(at('etc/systemd/system/kubelet.service'), driftOsc().spec.units?.[0]?.content ?? '');
    expect(keys(await detect())).to.deep.equal([
      'drop-in /etc/systemd/system/containerd.service.d/30-env.conf mode',
    ]);
  });

  it('enablement, masking and a unit that stopped, through systemd', async () => {
    await systemd.disable(['kubelet.service']);
    await systemd.stop('containerd.service');
    symlinkSync('/dev/null', at('etc/systemd/system/systemd-sysctl.service'));
    expect(keys(await detect())).to.deep.equal([
      'unit kubelet.service enablement',
      'unit /etc/systemd/system/systemd-sysctl.service masked',
      'unit containerd.service not-running',
    ]);
  });

  it('a masked unit of ours is a unit file turned into a symlink', async () => {
    rmSync(at('etc/systemd/system/kubelet.service'));
    symlinkSync('/dev/null', at('etc/systemd/system/kubelet.service'));
    const [d] = await detect();
    expect(d).to.include({ object: 'unit-file', kind: 'type', actual: 'symlink to /dev/null' });
  });

  it('leaves out the declared exclusions, each with its reason', async () => {
    const osc = driftOsc();
    osc.spec.files = [...(osc.spec.files ?? []), file('/var/lib/gardener-node-agent/credentials/token', 't')];
    rmSync(at('var/lib/kubelet/ca.crt'));
    const drifts = await detectDrift({ host: new HostRoot(root), osc, systemd });
    expect(keys(drifts)).to.deep.equal(['file /var/lib/kubelet/ca.crt missing']);
    for (const e of DRIFT_EXCLUSIONS) expect(e.reason, e.path).to.match(/\w{3,}/);
  });

  it('an adopted drift is no longer reported, until the node changes it again', async () => {
    const host = new HostRoot(root);
    writeFileSync(at('etc/sysctl.d/99-k8s-general.conf'), 'vm.max_map_count = 1\n');
    await adopt(host, await detect());
    expect(await detect()).to.deep.equal([]);
    writeFileSync(at('etc/sysctl.d/99-k8s-general.conf'), 'vm.max_map_count = 2\n');
    expect(keys(await detect())).to.deep.equal(['file /etc/sysctl.d/99-k8s-general.conf content']);
  });
});
