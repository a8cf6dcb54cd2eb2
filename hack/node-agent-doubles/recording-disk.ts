import { appendFileSync } from 'node:fs';
import type { Disk } from '../../node-agent/bootstrap/disk.js';

/** Appends `{"op":"format-kubelet-data-volume","size":N}` to a file, for demos and process-level tests. */
export class RecordingDisk implements Disk {
  constructor(readonly file: string) {}

  formatKubeletDataVolume(sizeInBytes: number): Promise<void> {
    appendFileSync(this.file, `${JSON.stringify({ op: 'format-kubelet-data-volume', size: sizeInBytes })}\n`);
    return Promise.resolve();
  }
}
