/**
 * What an applied OSC means for each of its units, judged by the node's systemd: loaded; enabled,
 * or disabled where the OSC says so (`static` either way when the unit has no [Install] section,
 * which `systemctl enable` and `disable` accept and leave so); running, or run to success for
 * units that end (oneshot, or a service that exits and is started again by its own Restart=), or
 * stopped where the OSC says so. gardener-node-init.service is disabled and stopped once the agent runs. systemd
 * forgets the state of a unit that ended and nothing refers to, so that it ran is taken from its
 * journal.
 */
import { expect } from 'chai';
import { type OperatingSystemConfig, UNIT } from '../../api/index.js';
import type { Container } from '../../hack/real-node/container.js';
import { showUnits, unitStartsSince } from '../../hack/real-node/systemd-state.js';

const PROPERTIES = ['LoadState', 'ActiveState', 'SubState', 'UnitFileState', 'Result'];

export async function expectUnitsAsOscSays(container: Container, osc: OperatingSystemConfig): Promise<void> {
  const units = osc.spec.units ?? [];
  const state = await showUnits(
    container,
    units.map((u) => u.name),
    PROPERTIES,
  );
  const started = new Set((await unitStartsSince(container, '')).map((s) => s.unit));
  const problems: string[] = [];
  for (const unit of units) {
    const s = state.get(unit.name)!;
    const disabled = unit.name === UNIT.nodeInit || unit.enable === false;
    const stopped = disabled || unit.command === 'stop';
    const describe = `${unit.name}: ${PROPERTIES.map((p) => `${p}=${s[p] ?? ''}`).join(' ')}`;
    if (s.LoadState !== 'loaded') problems.push(`not loaded: ${describe}`);
    const content = unit.content ?? (await container.run(['systemctl', 'cat', '--', unit.name]));
    const installable = /^\[Install\]/m.test(content);
    // a unit without [Install] is `static` whether the OSC enables it or not (v1.150's
    // opentelemetry-collector-healthcheck.service, `enable: false`, started by its timer)
    const fileState = !installable ? 'static' : disabled ? 'disabled' : 'enabled';
    if (s.UnitFileState !== fileState) problems.push(`expected ${fileState}: ${describe}`);
    if (stopped) {
      if (s.ActiveState !== 'inactive') problems.push(`expected inactive: ${describe}`);
      continue;
    }
    const ranToSuccess =
      ['inactive', 'activating'].includes(s.ActiveState ?? '') &&
      s.Result === 'success' &&
      started.has(unit.name);
    if (s.ActiveState !== 'active' && !ranToSuccess) problems.push(`expected active: ${describe}`);
  }
  expect(problems, 'units that are not as the OSC says').to.deep.equal([]);
}
