import type { Disk } from '../../node-agent/bootstrap/disk.js';

/** Remembers each request, for tests. */
export class MemoryDisk implements Disk {
  readonly formatted: number[] = [];

  constructor(private readonly failWith?: Error) {}

  formatKubeletDataVolume(sizeInBytes: number): Promise<void> {
    this.formatted.push(sizeInBytes);
    return this.failWith ? Promise.reject(this.failWith) : Promise.resolve();
  }
}
