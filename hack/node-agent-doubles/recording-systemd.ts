/**
 * A Systemd that appends one JSON object per call to a file (`{"op":"restart","unit":"x.service"}`,
 * `{"op":"daemon-reload"}`; enable/disable one line per unit), for demos and process-level tests.
 * With `timestamps: true` every line also carries `"at"`, the ISO-8601 time of the call
 * (`{"op":"restart","unit":"x.service","at":"2026-01-01T00:00:00.000Z"}`), so a recording tells
 * when each unit restarted (`--systemd=record-timed:FILE`).
 *
 * The recording is also the simulated systemd's state: `unitStatus` answers from the lines in the
 * file (simulated-unit-status.ts), so an apply resumed by another process after a kill sees the
 * calls that took effect before it.
 *
 * `killAfterOps: k` SIGKILLs the own process right after the k-th line is written (the call took
 * effect, its caller never learns it), `killBeforeOps: k` right before the k-th line would be
 * written (the call was in flight and never reached systemd): the crash tests use them (env
 * NODE_AGENT_TEST_KILL_AFTER_SYSTEMD_OPS, NODE_AGENT_TEST_KILL_BEFORE_SYSTEMD_OPS) to kill an
 * apply in the middle of a call.
 *
 * `faults` makes starts and restarts of named units fail or leave them inactive (systemd-faults.ts):
 * the call is recorded with `"fault"`, and a failing one then throws as systemctl's would.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import type { SystemdOp } from '../../node-agent/systemd/systemd.js';
import type { UnitStatus } from '../../node-agent/systemd/unit-status.js';
import { OpSystemd } from './op-systemd.js';
import { simulatedUnitFileState } from './simulated-unit-file-state.js';
import { simulatedUnitStatus } from './simulated-unit-status.js';
import { faultFor, type SystemdFault, type SystemdFaultEffect } from './systemd-faults.js';

export interface RecordingSystemdOptions {
  readonly killAfterOps?: number;
  readonly killBeforeOps?: number;
  /** Adds `"at"` (ISO-8601, milliseconds) to every line. */
  readonly timestamps?: boolean;
  /** The clock of `"at"` (tests). */
  readonly now?: () => Date;
  /** The failure rules, asked at every start and restart (so they may change while the agent runs). */
  readonly faults?: () => readonly SystemdFault[];
  /** The node's root, for rules that depend on a file's content. */
  readonly root?: string;
}

/**
 * One line of a recording: the call, its time when the recording was made with timestamps, and
 * the injected fault, if any.
 */
export type RecordedSystemdOp = SystemdOp & { readonly at?: string; readonly fault?: SystemdFaultEffect };

export class RecordingSystemd extends OpSystemd {
  private written = 0;

  constructor(
    readonly file: string,
    private readonly options: RecordingSystemdOptions = {},
  ) {
    super();
  }

  unitFileState(unit: string): Promise<string> {
    return Promise.resolve(simulatedUnitFileState(this.recorded(), unit));
  }

  private recorded(): RecordedSystemdOp[] {
    let text = '';
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    return parseRecording(text);
  }

  unitStatus(unit: string): Promise<UnitStatus> {
    return Promise.resolve(simulatedUnitStatus(this.recorded(), unit));
  }

  protected record(op: SystemdOp): Promise<void> {
    if (this.options.killBeforeOps !== undefined && this.written + 1 >= this.options.killBeforeOps) {
      process.kill(process.pid, 'SIGKILL');
    }
    const fault =
      'unit' in op && (op.op === 'start' || op.op === 'restart') && this.options.faults
        ? faultFor(this.options.faults(), op.unit, this.options.root)
        : undefined;
    const line: RecordedSystemdOp = {
      ...op,
      ...(this.options.timestamps ? { at: (this.options.now ?? (() => new Date()))().toISOString() } : {}),
      ...(fault ? { fault } : {}),
    };
    appendFileSync(this.file, `${JSON.stringify(line)}\n`);
    this.written++;
    if (this.options.killAfterOps !== undefined && this.written >= this.options.killAfterOps) {
      process.kill(process.pid, 'SIGKILL');
    }
    if (fault === 'fail' && 'unit' in op)
      return Promise.reject(
        new Error(
          `Job for ${op.unit} failed because the control process exited with error code (injected fault)`,
        ),
      );
    return Promise.resolve();
  }
}

/** Reads a recording back; a torn last line (a kill mid-write) is ignored. */
export function parseRecording(text: string): RecordedSystemdOp[] {
  const ops: RecordedSystemdOp[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      ops.push(JSON.parse(line) as RecordedSystemdOp);
    } catch {
      // A partial line can only be the last one.
    }
  }
  return ops;
}
