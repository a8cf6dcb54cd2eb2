/**
 * A Systemd that appends one JSON object per call to a file (`{"op":"restart","unit":"x.service"}`,
 * `{"op":"daemon-reload"}`; enable/disable one line per unit), for demos and process-level tests.
 * With `timestamps: true` every line also carries `"at"`, the ISO-8601 time of the call
 * (`{"op":"restart","unit":"x.service","at":"2026-01-01T00:00:00.000Z"}`), so a recording tells
 * when each unit restarted (`--systemd=record-timed:FILE`).
 *
 * `killAfterOps: k` SIGKILLs the own process right after the k-th line is written: the crash test
 * uses it (env NODE_AGENT_TEST_KILL_AFTER_SYSTEMD_OPS) to kill an apply in the middle of its work.
 */
import { appendFileSync } from 'node:fs';
import { OpSystemd } from './op-systemd.js';
import type { SystemdOp } from './systemd.js';

export interface RecordingSystemdOptions {
  readonly killAfterOps?: number;
  /** Adds `"at"` (ISO-8601, milliseconds) to every line. */
  readonly timestamps?: boolean;
  /** The clock of `"at"` (tests). */
  readonly now?: () => Date;
}

/** One line of a recording: the call, and its time when the recording was made with timestamps. */
export type RecordedSystemdOp = SystemdOp & { readonly at?: string };

export class RecordingSystemd extends OpSystemd {
  private written = 0;

  constructor(
    readonly file: string,
    private readonly options: RecordingSystemdOptions = {},
  ) {
    super();
  }

  protected record(op: SystemdOp): Promise<void> {
    const line: RecordedSystemdOp = this.options.timestamps
      ? { ...op, at: (this.options.now ?? (() => new Date()))().toISOString() }
      : op;
    appendFileSync(this.file, `${JSON.stringify(line)}\n`);
    this.written++;
    if (this.options.killAfterOps !== undefined && this.written >= this.options.killAfterOps) {
      process.kill(process.pid, 'SIGKILL');
    }
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
