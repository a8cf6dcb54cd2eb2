/** The recorded systemd calls of the agent (`--systemd=record:FILE`), each line timestamped as it appears. */
import {
  closeSync,
  type FSWatcher,
  fstatSync,
  openSync,
  readSync,
  watch as watchFile,
  writeFileSync,
} from 'node:fs';
import { LineSplitter } from '../../../runtime/kube/json-lines.js';
import { now } from '../support/run.js';
import { changes } from './agent-process.js';

export interface RecordedOp {
  readonly op: string;
  readonly unit?: string;
  /** When the bench saw the line (fs.watch event, then a read): epoch ms, sub-ms resolution. */
  readonly seenAt: number;
  /** The file's mtime right after the line was read (kernel clock, coarse granularity). */
  readonly mtimeMs: number;
  /** Seen through the fallback poll rather than an fs.watch event. */
  readonly polled: boolean;
}

export class RecordWatcher {
  readonly ops: RecordedOp[] = [];
  private offset = 0;
  private readonly lines = new LineSplitter();
  private readonly watcher: FSWatcher;
  private readonly poller: NodeJS.Timeout;

  constructor(readonly file: string) {
    writeFileSync(file, '');
    this.watcher = watchFile(file, () => this.read(false));
    this.poller = setInterval(() => this.read(true), 250);
  }

  private read(polled: boolean): void {
    const seenAt = now();
    const fd = openSync(this.file, 'r');
    try {
      const stat = fstatSync(fd);
      if (stat.size <= this.offset) return;
      const buffer = Buffer.alloc(stat.size - this.offset);
      const n = readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset += n;
      for (const line of this.lines.push(buffer.subarray(0, n))) {
        if (!line.trim()) continue;
        const op = JSON.parse(line) as { op: string; unit?: string };
        this.ops.push({ ...op, seenAt, mtimeMs: stat.mtimeMs, polled });
      }
    } finally {
      closeSync(fd);
    }
    changes.notify();
  }

  close(): void {
    this.watcher.close();
    clearInterval(this.poller);
  }
}
