/**
 * An apply killed at every one of its crash points, then resumed by the next apply of the same
 * OSC: the staged image copies never outlive the resumed apply, no restart or stop runs twice or
 * is lost, and the tree ends as after an uninterrupted apply. The crash hook ends the apply as a
 * SIGKILL would: nothing of it runs afterwards (no `finally` cleanup), so what a kill leaves
 * behind is what the resumed apply finds. The OSCs change a binary taken from an image (as the
 * kubelet and agent binaries on a node) and restart a timer unit with its service.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { type OperatingSystemConfig, PATH } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { applyTo, opText } from '../support/apply-fixture.js';
import { snapshotTree, useTempDirs } from '../support/harness.js';
import { isUnitCommand, withoutNoOpStops } from '../support/systemd-effects.js';

class SimulatedKill extends Error {}

const IMAGES = { 'kubelet:1': { '/kubelet': 'kubelet-1' }, 'kubelet:2': { '/kubelet': 'kubelet-2' } };

function osc(version: 1 | 2): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: 'osc', namespace: 'shoot--foo--bar' },
    spec: {
      type: 'type',
      purpose: 'reconcile',
      files: [
        {
          path: '/opt/bin/kubelet',
          permissions: 0o755,
          content: { imageRef: { image: `kubelet:${version}`, filePathInImage: '/kubelet' } },
        },
        { path: '/etc/logrotate.conf', content: { inline: { encoding: '', data: `rotate ${version}` } } },
      ],
      units: [
        { name: 'kubelet.service', enable: true, command: 'start', content: `#kubelet ${version}` },
        {
          name: 'logrotate.service',
          enable: true,
          content: `[Service]\nType=oneshot\n#${version}`,
          filePaths: ['/etc/logrotate.conf'],
        },
        {
          name: 'logrotate.timer',
          enable: true,
          command: 'start',
          content: `[Timer]\nOnCalendar=*:0/${10 * version}\nPersistent=true`,
        },
        ...(version === 1
          ? [{ name: 'old.service', enable: true, command: 'start' as const, content: '#old' }]
          : []),
      ],
    },
  } as OperatingSystemConfig;
}

const stagingDirs = (root: string): string[] => {
  const scratch = join(root, PATH.nodeAgentTempDir);
  return existsSync(scratch) ? readdirSync(scratch).filter((n) => n.startsWith('staged-')) : [];
};

describe('node-agent applier: killed at every crash point and resumed', function () {
  this.timeout(120_000);
  const tempDir = useTempDirs();

  it('leaves no staged image copy and repeats or loses no restart or stop', async () => {
    const images = writeImages(tempDir('gna-images-'), IMAGES);
    const clean = tempDir('gna-clean-');
    const cleanSystemd = new MemorySystemd();
    await applyTo(clean, osc(1), images, { systemd: cleanSystemd });
    const from = cleanSystemd.ops.length;
    await applyTo(clean, osc(2), images, { systemd: cleanSystemd });
    const expected = withoutNoOpStops(cleanSystemd.ops.map(opText), from).filter(isUnitCommand);
    expect(expected).to.include.members(['restart logrotate.timer', 'restart logrotate.service']);
    const expectedTree = snapshotTree(clean);

    const problems: string[] = [];
    let points = 0;
    for (let n = 0; ; n++) {
      const root = tempDir('gna-kill-');
      const systemd = new MemorySystemd();
      await applyTo(root, osc(1), images, { systemd });
      const before = systemd.ops.length;
      let calls = 0;
      let at = '';
      const killed = await applyTo(root, osc(2), images, {
        systemd,
        crashPoint: (where) => {
          if (calls++ === n) {
            at = where;
            throw new SimulatedKill(where);
          }
        },
      }).then(
        () => false,
        (e) => {
          if (!(e instanceof SimulatedKill)) throw e;
          return true;
        },
      );
      if (!killed) break;
      points++;
      const resumed = await applyTo(root, osc(2), images, { systemd });
      expect(resumed.result.resumed, at).to.equal(true);
      const commands = withoutNoOpStops(systemd.ops.map(opText), before).filter(isUnitCommand);
      if (JSON.stringify(commands) !== JSON.stringify(expected))
        problems.push(`killed at "${at}": ${commands.join(', ')}`);
      if (stagingDirs(root).length > 0)
        problems.push(`killed at "${at}": left ${stagingDirs(root).join(', ')}`);
      expect(snapshotTree(root), at).to.deep.equal(expectedTree);
    }
    expect(points).to.be.greaterThan(20);
    expect(problems).to.deep.equal([]);
  });

  it('killed again while resuming, before it reaches the interrupted command: still runs it once', async () => {
    const images = writeImages(tempDir('gna-images-'), IMAGES);
    const clean = tempDir('gna-clean-');
    const cleanSystemd = new MemorySystemd();
    await applyTo(clean, osc(1), images, { systemd: cleanSystemd });
    const from = cleanSystemd.ops.length;
    await applyTo(clean, osc(2), images, { systemd: cleanSystemd });
    const expected = withoutNoOpStops(cleanSystemd.ops.map(opText), from).filter(isUnitCommand);

    const problems: string[] = [];
    // each point right after a restart or stop took effect, before it was checked off
    for (const command of expected) {
      const root = tempDir('gna-kill-');
      const systemd = new MemorySystemd();
      await applyTo(root, osc(1), images, { systemd });
      const before = systemd.ops.length;
      const killAt = (point: string) => (where: string) => {
        if (where === point) throw new SimulatedKill(where);
      };
      for (const point of [`done ${command}`, 'persisted'])
        await applyTo(root, osc(2), images, { systemd, crashPoint: killAt(point) }).catch((e) => {
          if (!(e instanceof SimulatedKill)) throw e;
        });
      await applyTo(root, osc(2), images, { systemd });
      const commands = withoutNoOpStops(systemd.ops.map(opText), before).filter(isUnitCommand);
      if (JSON.stringify(commands) !== JSON.stringify(expected))
        problems.push(`killed after ${command} and again: ${commands.join(', ')}`);
    }
    expect(problems).to.deep.equal([]);
  });

  it('an apply with nothing to do removes the staged copies a killed apply left', async () => {
    const images = writeImages(tempDir('gna-images-'), IMAGES);
    const root = tempDir('gna-root-');
    await applyTo(root, osc(1), images);
    // a kill while staging, before the plan was persisted; the node then gets the same OSC again
    const staged = join(root, PATH.nodeAgentTempDir, 'staged-0123456789abcdef');
    mkdirSync(staged);
    writeFileSync(join(staged, '0'), 'kubelet-2');
    const again = await applyTo(root, osc(1), images);
    expect(again.result.outcome).to.equal('up-to-date');
    expect(stagingDirs(root)).to.deep.equal([]);
  });
});
