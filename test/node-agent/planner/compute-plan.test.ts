import { expect } from 'chai';
import type { OperatingSystemConfig, OscFile, OscUnit } from '../../../api/index.js';
import { computePlan } from '../../../node-agent/planner/compute-plan.js';
import { fileModeOf } from '../../../node-agent/planner/file-mode.js';
import { isEmptyPlan, type Plan } from '../../../node-agent/planner/plan.js';
import { commandOf, enablementOf } from '../../../node-agent/planner/unit-actions.js';
import '../support/harness.js';
import { FILE, oscV1, oscV1WithNodeAgent, oscV2, UNIT } from '../../../hack/landscape/ntv18-fixtures.js';

const osc = (
  units: OscUnit[],
  files: OperatingSystemConfig['spec']['files'] = [],
): OperatingSystemConfig => ({
  apiVersion: 'extensions.gardener.cloud/v1alpha1',
  kind: 'OperatingSystemConfig',
  metadata: { name: 'osc' },
  spec: { type: 't', purpose: 'reconcile', units, files },
});

const commandsOf = (plan: Plan) =>
  plan.commands.map((c) => `${c.command} ${c.unit}${c.ifUnitExists ? '?' : ''}`);

describe('node-agent planner: computePlan', () => {
  describe('N-TV-19 first apply (no previous OSC)', () => {
    const plan = computePlan(undefined, oscV1());

    it('writes every file and deletes nothing', () => {
      expect(plan.files.write.map((f) => f.path)).to.deep.equal([
        '/example/file',
        '/third/file',
        '/changed/file',
        '/another/file',
        '/unchanged/file',
        '/sixth/file',
        '/seventh/file',
      ]);
      expect(plan.files.delete).to.deep.equal([]);
      expect(plan.units.delete).to.deep.equal([]);
    });

    it('writes unit files only for units with content, and every drop-in (unit5 merged from unit5b)', () => {
      expect(plan.units.write.map((u) => [u.name, u.content])).to.deep.equal([
        ['unit1', '#unit1'],
        ['unit2', '#unit2'],
        ['unit5', '#unit5'],
        ['unit6', '#unit6'],
        ['unit7', '#unit7'],
        ['unit3', undefined],
        ['unit4', '#unit4'],
        ['unit8', '#unit8'],
        ['unit9', undefined],
      ]);
      const dropIns = Object.fromEntries(
        plan.units.write.map((u) => [
          u.name,
          u.dropIns.removeDirectory ? 'rm -rf' : u.dropIns.write.map((d) => d.name),
        ]),
      );
      expect(dropIns).to.deep.equal({
        unit1: ['drop'],
        unit2: 'rm -rf',
        unit5: ['drop1', 'drop2', 'extensionsdrop'],
        unit6: 'rm -rf',
        unit7: 'rm -rf',
        unit3: ['drop'],
        unit4: ['drop'],
        unit8: 'rm -rf',
        unit9: ['drop'],
      });
    });

    it('enables all but unit2, reloads, restarts all but unit2, stops unit2', () => {
      expect(plan.enable).to.deep.equal([
        'unit1',
        'unit5',
        'unit6',
        'unit7',
        'unit3',
        'unit4',
        'unit8',
        'unit9',
      ]);
      expect(plan.disable).to.deep.equal(['unit2']);
      expect(plan.daemonReload).to.equal(true);
      expect(plan.mustRestartNodeAgent).to.equal(false);
      expect(commandsOf(plan)).to.deep.equal([
        'restart unit1',
        'stop unit2',
        'restart unit5',
        'restart unit6',
        'restart unit7',
        'restart unit3',
        'restart unit4',
        'restart unit8',
        'restart unit9',
      ]);
    });
  });

  describe('N-TV-20 / N-TV-31 update v1 -> v2', () => {
    const plan = computePlan(oscV1(), oscV2());

    it('deletes file2 and writes only the changed files, in new order', () => {
      expect(plan.files.delete).to.deep.equal(['/another/file']);
      expect(plan.files.write.map((f) => [f.path, f.content.inline?.data])).to.deep.equal([
        ['/changed/file', 'changeme'],
        ['/sixth/file', 'changed'],
        ['/seventh/file', 'changed-as-well'],
      ]);
    });

    it('changes units in new merged order; unit3 is untouched because file4 did not change', () => {
      expect(plan.units.write.map((u) => u.name)).to.deep.equal([
        'unit2',
        'unit5',
        'unit6',
        'unit7',
        'unit4',
        'unit8',
        'unit9',
      ]);
      expect(plan.units.delete).to.deep.equal([{ name: 'unit1', ownedByAgent: true, dropIns: [] }]);
    });

    it('diffs drop-ins per unit', () => {
      const byName = Object.fromEntries(plan.units.write.map((u) => [u.name, u.dropIns]));
      expect(byName.unit5).to.deep.equal({
        write: [],
        delete: ['drop1', 'extensionsdrop'],
        removeDirectory: false,
      });
      expect(byName.unit2).to.deep.equal({
        write: [{ name: 'dropdropdrop', content: '#unit2drop' }],
        delete: [],
        removeDirectory: false,
      });
      expect(byName.unit4).to.deep.equal({ write: [], delete: [], removeDirectory: true });
      expect(byName.unit9).to.deep.equal({ write: [], delete: [], removeDirectory: false });
    });

    it('enables, disables and commands as N-TV-20 lists (unit1 is disabled and stopped by its removal)', () => {
      expect(plan.enable).to.deep.equal(['unit2', 'unit5', 'unit6', 'unit7', 'unit8', 'unit9']);
      expect(plan.disable).to.deep.equal(['unit4']);
      expect(plan.daemonReload).to.equal(true);
      expect(commandsOf(plan)).to.deep.equal([
        'restart unit2',
        'restart unit5',
        'restart unit6',
        'restart unit7',
        'stop unit4',
        'restart unit8',
        'restart unit9',
      ]);
    });
  });

  it('N-TV-21: a changed node agent unit is enabled (despite enable: false) and restarts the agent, not systemd', () => {
    const plan = computePlan(oscV1(), oscV1WithNodeAgent());
    expect(plan.units.write).to.deep.equal([
      {
        name: 'gardener-node-agent.service',
        content: '#gna',
        dropIns: { write: [], delete: [], removeDirectory: true },
      },
    ]);
    expect(plan.enable).to.deep.equal(['gardener-node-agent.service']);
    expect(plan.disable).to.deep.equal([]);
    expect(plan.daemonReload).to.equal(true);
    expect(plan.commands).to.deep.equal([]);
    expect(plan.mustRestartNodeAgent).to.equal(true);
  });

  it('N-TV-32: the unit command decision table', () => {
    const rows: [Partial<OscUnit>, string, string][] = [
      [{}, 'restart', 'enable'],
      [{ enable: true, command: 'start' }, 'restart', 'enable'],
      [{ enable: true, command: 'restart' }, 'restart', 'enable'],
      [{ enable: true, command: 'stop' }, 'stop', 'enable'],
      [{ enable: false, command: 'start' }, 'stop', 'disable'],
      [{ enable: false }, 'stop', 'disable'],
      [{ command: 'stop' }, 'stop', 'enable'],
    ];
    for (const [fields, command, enablement] of rows) {
      const unit = { name: 'x', ...fields };
      expect(commandOf(unit), JSON.stringify(fields)).to.equal(command);
      expect(enablementOf(unit), JSON.stringify(fields)).to.equal(enablement);
    }
    for (const fields of [{}, { enable: false }, { enable: true, command: 'stop' as const }]) {
      expect(commandOf({ name: 'gardener-node-agent.service', ...fields })).to.equal('restart-node-agent');
      expect(enablementOf({ name: 'gardener-node-agent.service', ...fields })).to.equal('enable');
      expect(commandOf({ name: 'gardener-node-init.service', ...fields })).to.equal('stop');
      expect(enablementOf({ name: 'gardener-node-init.service', ...fields })).to.equal('disable');
    }
    expect(commandOf({ name: 'gardener-node-init.service', enable: true, command: 'start' })).to.equal(
      'stop',
    );
  });

  it('planning the same OSC again gives an empty plan', () => {
    expect(isEmptyPlan(computePlan(oscV1(), oscV1()))).to.equal(true);
    expect(isEmptyPlan(computePlan(oscV2(), oscV2()))).to.equal(true);
    expect(isEmptyPlan(computePlan(undefined, oscV1()))).to.equal(false);
  });

  it('moving a file between spec.files and status.extensionFiles is no change', () => {
    const moved = oscV1();
    moved.spec.files = [...moved.spec.files!, ...moved.status!.extensionFiles!];
    moved.status!.extensionFiles = [];
    expect(isEmptyPlan(computePlan(oscV1(), moved))).to.equal(true);
  });

  it('null-ish differences (missing vs empty arrays) are no change', () => {
    const before = osc([{ name: 'a.service', content: 'x', dropIns: [], filePaths: [] }]);
    const after = osc([{ name: 'a.service', content: 'x' }]);
    expect(isEmptyPlan(computePlan(before, after))).to.equal(true);
  });

  it('a unit whose only difference is a path removed from filePaths is changed', () => {
    const plan = computePlan(
      osc([{ name: 'a.service', content: 'x', filePaths: ['/f'] }]),
      osc([{ name: 'a.service', content: 'x' }]),
    );
    expect(commandsOf(plan)).to.deep.equal(['restart a.service']);
  });

  it('a deleted file does not restart the units that listed it', () => {
    const plan = computePlan(
      osc(
        [{ name: 'a.service', content: 'x', filePaths: ['/f'] }],
        [FILE.file1, { ...FILE.file2, path: '/f' }],
      ),
      osc([{ name: 'a.service', content: 'x', filePaths: ['/f'] }], [FILE.file1]),
    );
    expect(plan.files.delete).to.deep.equal(['/f']);
    expect(plan.commands).to.deep.equal([]);
    expect(plan.daemonReload).to.equal(false);
  });

  describe('a unit file or drop-in that is a file of spec.files', () => {
    const dropIn = (content: string, path = '/etc/systemd/system/containerd.service.d/10-x.conf') => ({
      path,
      content: { inline: { encoding: '' as const, data: content } },
    });

    it('changed: systemd reloads, so it sees the new setting (no unit restarts for it)', () => {
      const plan = computePlan(osc([], [dropIn('[Service]\nA=1')]), osc([], [dropIn('[Service]\nA=2')]));
      expect(plan.files.write.map((f) => f.path)).to.deep.equal([
        '/etc/systemd/system/containerd.service.d/10-x.conf',
      ]);
      expect(plan.daemonReload).to.equal(true);
      expect(plan.commands).to.deep.equal([]);
    });

    it('deleted: systemd reloads, so the setting is gone', () => {
      const plan = computePlan(osc([], [dropIn('[Service]\nA=1')]), osc([], []));
      expect(plan.daemonReload).to.equal(true);
    });

    for (const dir of ['/run/systemd/system', '/usr/lib/systemd/system', '/lib/systemd/system']) {
      it(`under ${dir} too`, () => {
        const path = `${dir}/x.service`;
        expect(computePlan(osc([], [dropIn('a', path)]), osc([], [dropIn('b', path)])).daemonReload).to.equal(
          true,
        );
      });
    }

    it('a file elsewhere, even one named like a unit, does not reload', () => {
      for (const path of ['/etc/systemd/journald.conf', '/etc/systemd/systemx/a.service', '/opt/a.service']) {
        expect(
          computePlan(osc([], [dropIn('a', path)]), osc([], [dropIn('b', path)])).daemonReload,
          path,
        ).to.equal(false);
      }
    });
  });

  it('v1.111: a removed unit without content only loses its drop-ins and is restarted if it exists', () => {
    const plan = computePlan(
      osc([{ name: 'os.service', dropIns: [{ name: '10-x.conf', content: 'x' }] }, UNIT.unit2!]),
      osc([UNIT.unit2!]),
    );
    expect(plan.units.delete).to.deep.equal([
      { name: 'os.service', ownedByAgent: false, dropIns: ['10-x.conf'] },
    ]);
    expect(commandsOf(plan)).to.deep.equal(['restart os.service?']);
    expect(plan.disable).to.deep.equal([]);
    expect(plan.daemonReload).to.equal(true);
  });

  it('a removed unit without content and without drop-ins needs nothing', () => {
    expect(isEmptyPlan(computePlan(osc([{ name: 'os.service', enable: true }]), osc([])))).to.equal(true);
  });

  it('never removes the node agent unit itself', () => {
    const plan = computePlan(osc([UNIT.gna!, UNIT.unit2!]), osc([UNIT.unit2!]));
    expect(isEmptyPlan(plan)).to.equal(true);
  });

  it('gardener-node-init.service is disabled and stopped, never enabled or restarted', () => {
    const plan = computePlan(
      undefined,
      osc([{ name: 'gardener-node-init.service', enable: true, command: 'start', content: 'x' }]),
    );
    expect(plan.enable).to.deep.equal([]);
    expect(plan.disable).to.deep.equal(['gardener-node-init.service']);
    expect(commandsOf(plan)).to.deep.equal(['stop gardener-node-init.service']);
  });

  describe('with an interrupted plan of a superseded OSC', () => {
    it('rewrites and restarts what it touched, removes what it created that the next OSC lacks', () => {
      const a = osc(
        [
          { name: 'a.service', content: 'a' },
          { name: 'b.service', content: 'b' },
        ],
        [FILE.file1],
      );
      const b = osc(
        [
          { name: 'a.service', content: 'a2', dropIns: [{ name: 'd', content: 'd' }] },
          { name: 'b.service', content: 'b' },
          { name: 'new.service', content: 'n' },
          { name: 'os.service', dropIns: [{ name: 'e', content: 'e' }] },
        ],
        [FILE.file1, FILE.file4],
      );
      const c = a;
      const interrupted = computePlan(a, b);
      expect(isEmptyPlan(computePlan(a, c))).to.equal(true);
      const plan = computePlan(a, c, { interrupted });
      expect(plan.files.write).to.deep.equal([]);
      expect(plan.files.delete).to.deep.equal(['/unchanged/file']);
      expect(plan.units.write).to.deep.equal([
        { name: 'a.service', content: 'a', dropIns: { write: [], delete: [], removeDirectory: true } },
      ]);
      expect(plan.units.delete).to.deep.equal([
        { name: 'new.service', ownedByAgent: true, dropIns: [] },
        { name: 'os.service', ownedByAgent: false, dropIns: ['e'] },
      ]);
      expect(commandsOf(plan)).to.deep.equal(['restart a.service', 'restart os.service?']);
    });

    it('keeps the drop-ins the next OSC still has and deletes the ones only the interrupted plan wrote', () => {
      const a = osc([{ name: 'a.service', content: 'a', dropIns: [{ name: 'keep', content: 'k' }] }]);
      const b = osc([
        {
          name: 'a.service',
          content: 'a',
          dropIns: [
            { name: 'keep', content: 'k2' },
            { name: 'x', content: 'x' },
          ],
        },
      ]);
      const plan = computePlan(a, a, { interrupted: computePlan(a, b) });
      expect(plan.units.write[0]!.dropIns).to.deep.equal({
        write: [{ name: 'keep', content: 'k' }],
        delete: ['x'],
        removeDirectory: false,
      });
    });

    it('without a previous OSC still removes what the interrupted plan created', () => {
      const b = osc([{ name: 'b.service', content: 'b' }], [FILE.file4]);
      const c = osc([], [FILE.file1]);
      const plan = computePlan(undefined, c, { interrupted: computePlan(undefined, b) });
      expect(plan.files.write.map((f) => f.path)).to.deep.equal(['/example/file']);
      expect(plan.files.delete).to.deep.equal(['/unchanged/file']);
      expect(plan.units.delete).to.deep.equal([{ name: 'b.service', ownedByAgent: true, dropIns: [] }]);
    });
  });
});

describe('node-agent planner: what files mean beyond their bytes', () => {
  const file = (path: string, permissions?: number): OscFile => ({
    path,
    ...(permissions === undefined ? {} : { permissions }),
    content: { inline: { encoding: '', data: 'x' } },
  });

  it("writes modes without setuid, setgid and sticky bits, as Go's os.FileMode does (never a setuid file)", () => {
    const plan = computePlan(
      undefined,
      osc([], [file('/a', 0o4755), file('/b', 744), file('/c', 0o644), file('/d')]),
    );
    expect(plan.files.write.map(fileModeOf)).to.deep.equal([0o755, 0o350, 0o644, 0o600]);
  });

  it('a changed mode is a change, even when only special bits differ (upstream rewrites it too)', () => {
    const plan = computePlan(osc([], [file('/a', 0o755)]), osc([], [file('/a', 0o4755)]));
    expect(plan.files.write.map((f) => [f.path, fileModeOf(f)])).to.deep.equal([['/a', 0o755]]);
  });

  it('a drop-in delivered through spec.files makes systemd reload (upstream reloads on every apply)', () => {
    const dropIn = '/etc/systemd/system/containerd.service.d/11-exec_config.conf';
    const before = osc([], [file(dropIn)]);
    const after = osc([], [{ ...file(dropIn), content: { inline: { encoding: '', data: 'y' } } }]);
    expect(computePlan(before, after).daemonReload).to.equal(true);
    expect(computePlan(undefined, before).daemonReload).to.equal(true);
    expect(computePlan(before, osc([], [])).daemonReload, 'deleted').to.equal(true);
    expect(computePlan(osc([], [file('/etc/x')]), osc([], [file('/etc/x', 0o600)])).daemonReload).to.equal(
      false,
    );
  });
});
