/**
 * The production Systemd: `systemctl` subprocesses (gardener v1.91.4 pkg/nodeagent/dbus/dbus.go
 * names this as an option to D-Bus).
 * - enable/disable mirror D-Bus EnableUnitFiles(force=true)/DisableUnitFiles: `--force` replaces
 *   conflicting symlinks, `--no-reload` because the agent reloads once, when it decides to.
 * - start/stop/restart use `--job-mode=replace` (StartUnit(name, "replace")) and wait for the job, at
 *   most `jobWaitMs` (10 s, gardener v1.91.4 pkg/nodeagent/dbus/dbus.go): a job still running then
 *   is logged and counted as done, so one slow unit cannot stall the whole apply. The systemctl
 *   client is killed; the job itself stays queued in systemd and finishes there.
 * - `--no-ask-password` so nothing ever waits for a prompt; `--` so a unit name is never an option.
 * - unitStatus is `systemctl show --property=…` (InvocationID, the state timestamps): systemd's
 *   own answer to whether a restart or stop happened, read before and after a crash.
 */
import type { Logger } from '../../runtime/logging.js';
import { silentLogger } from '../../runtime/logging.js';
import { failureText, runCommand } from '../process/run-command.js';
import type { Systemd } from './systemd.js';
import { parseUnitActivity, UNIT_ACTIVITY_PROPERTIES, type UnitActivity } from './unit-activity.js';
import { parseUnitStatus, UNIT_STATUS_PROPERTIES, type UnitStatus } from './unit-status.js';

export const DEFAULT_JOB_WAIT_MS = 10_000;
/** daemon-reload, enable and disable do not wait for units; a minute means systemd is stuck. */
const DEFAULT_CALL_TIMEOUT_MS = 60_000;

export interface SystemctlOptions {
  readonly systemctl?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly jobWaitMs?: number;
  readonly callTimeoutMs?: number;
  readonly logger?: Logger;
}

type JobOp = 'start' | 'stop' | 'restart' | 'reload-or-restart';

export class SystemctlSystemd implements Systemd {
  private readonly systemctl: string;
  private readonly jobWaitMs: number;
  private readonly callTimeoutMs: number;
  private readonly logger: Logger;

  constructor(private readonly options: SystemctlOptions = {}) {
    this.systemctl = options.systemctl ?? 'systemctl';
    this.jobWaitMs = options.jobWaitMs ?? DEFAULT_JOB_WAIT_MS;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.logger = options.logger ?? silentLogger;
  }

  private run(args: readonly string[], timeoutMs: number) {
    return runCommand(this.systemctl, ['--no-ask-password', ...args], { env: this.options.env, timeoutMs });
  }

  async unitStatus(unit: string): Promise<UnitStatus> {
    const args = ['show', `--property=${UNIT_STATUS_PROPERTIES.join(',')}`, '--', unit];
    const result = await this.run(args, this.callTimeoutMs);
    if (result.timedOut)
      throw new Error(`unable to read unit ${unit}: no answer within ${this.callTimeoutMs} ms`);
    if (result.exitCode !== 0) throw new Error(`unable to read unit ${unit}: ${failureText(result)}`);
    return parseUnitStatus(result.stdout);
  }

  async unitActivity(unit: string): Promise<UnitActivity> {
    const args = ['show', `--property=${UNIT_ACTIVITY_PROPERTIES.join(',')}`, '--', unit];
    const result = await this.run(args, this.callTimeoutMs);
    if (result.timedOut)
      throw new Error(`unable to read unit ${unit}: no answer within ${this.callTimeoutMs} ms`);
    if (result.exitCode !== 0) throw new Error(`unable to read unit ${unit}: ${failureText(result)}`);
    return parseUnitActivity(result.stdout);
  }

  /** `is-enabled` exits non-zero for disabled or masked units; its output is the answer either way. */
  async unitFileState(unit: string): Promise<string> {
    const result = await this.run(['is-enabled', '--', unit], this.callTimeoutMs);
    if (result.timedOut)
      throw new Error(`unable to read unit ${unit}: no answer within ${this.callTimeoutMs} ms`);
    const state = result.stdout.trim().split('\n')[0] ?? '';
    if (result.exitCode !== 0 && state === '') return '';
    return state;
  }

  async daemonReload(): Promise<void> {
    const result = await this.run(['daemon-reload'], this.callTimeoutMs);
    if (result.timedOut)
      throw new Error(`systemd daemon-reload failed: no answer within ${this.callTimeoutMs} ms`);
    if (result.exitCode !== 0) throw new Error(`systemd daemon-reload failed: ${failureText(result)}`);
  }

  private async unitFiles(op: 'enable' | 'disable', units: readonly string[]): Promise<void> {
    if (units.length === 0) return;
    const flags = op === 'enable' ? ['--force', '--no-reload'] : ['--no-reload'];
    const result = await this.run([op, ...flags, '--', ...units], this.callTimeoutMs);
    const which = units.join(', ');
    if (result.timedOut)
      throw new Error(`unable to ${op} unit ${which}: no answer within ${this.callTimeoutMs} ms`);
    if (result.exitCode !== 0) throw new Error(`unable to ${op} unit ${which}: ${failureText(result)}`);
  }

  enable(units: readonly string[]): Promise<void> {
    return this.unitFiles('enable', units);
  }

  disable(units: readonly string[]): Promise<void> {
    return this.unitFiles('disable', units);
  }

  private async job(op: JobOp, unit: string): Promise<void> {
    const result = await this.run(['--job-mode=replace', op, '--', unit], this.jobWaitMs);
    if (result.timedOut) {
      this.logger.info(
        { unitName: unit, operation: op, waitedMs: this.jobWaitMs },
        `Systemd operation is blocking for more than ${this.jobWaitMs / 1000}s, aborting and continuing anyways`,
      );
      return;
    }
    if (result.exitCode !== 0) throw new Error(`${op} failed for ${unit}: ${failureText(result)}`);
  }

  start(unit: string): Promise<void> {
    return this.job('start', unit);
  }

  stop(unit: string): Promise<void> {
    return this.job('stop', unit);
  }

  restart(unit: string): Promise<void> {
    return this.job('restart', unit);
  }

  /** `reload-or-restart`: an inactive unit cannot reload, and must still end up running its change. */
  reload(unit: string): Promise<void> {
    return this.job('reload-or-restart', unit);
  }
}
