/**
 * A Systemd that appends one JSON object per call to a file (`{"op":"restart","unit":"x.service"}`,
 * `{"op":"daemon-reload"}`; enable/disable one line per unit), for demos and process-level tests.
 *
 * `killAfterOps: k` SIGKILLs the own process right after the k-th line is written: the crash test
 * uses it (env NODE_AGENT_TEST_KILL_AFTER_SYSTEMD_OPS) to kill an apply in the middle of its work.
 */
import { appendFileSync } from 'node:fs';
import { OpSystemd } from './op-systemd.js';
import type { SystemdOp } from './systemd.js';

export interface RecordingSystemdOptions {
  readonly killAfterOps?: number;
}

export class RecordingSystemd extends OpSystemd {
  private written = 0;

  constructor(
    readonly file: string,
    private readonly options: RecordingSystemdOptions = {},
  ) {
    super();
  }

  protected record(op: SystemdOp): Promise<void> {
    appendFileSync(this.file, `${JSON.stringify(op)}\n`);
    this.written++;
    if (this.options.killAfterOps !== undefined && this.written >= this.options.killAfterOps) {
      process.kill(process.pid, 'SIGKILL');
    }
    return Promise.resolve();
  }
}

/** Reads a recording back; a torn last line (a kill mid-write) is ignored. */
export function parseRecording(text: string): SystemdOp[] {
  const ops: SystemdOp[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      ops.push(JSON.parse(line) as SystemdOp);
    } catch {
      // A partial line can only be the last one.
    }
  }
  return ops;
}
