/**
 * Newline-delimited text from a byte stream (a watch response, a child's output). Lines are cut at
 * the newline byte and decoded only once complete: UTF-8 never uses 0x0A inside a multi-byte
 * character, so a character split across two chunks is decoded whole, never as U+FFFD.
 */
const NEWLINE = 0x0a;

export class LineSplitter {
  private pending: Buffer[] = [];

  /** The lines completed by this chunk, without their newline. */
  push(chunk: Uint8Array): string[] {
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const lines: string[] = [];
    let start = 0;
    let newline = bytes.indexOf(NEWLINE, start);
    while (newline >= 0) {
      const tail = bytes.subarray(start, newline);
      const line = this.pending.length === 0 ? tail : Buffer.concat([...this.pending, tail]);
      this.pending = [];
      lines.push(line.toString('utf8'));
      start = newline + 1;
      newline = bytes.indexOf(NEWLINE, start);
    }
    if (start < bytes.length) this.pending.push(bytes.subarray(start));
    return lines;
  }

  /** What is left after the last newline (a stream that ended without one), or undefined. */
  end(): string | undefined {
    if (this.pending.length === 0) return undefined;
    const rest = Buffer.concat(this.pending).toString('utf8');
    this.pending = [];
    return rest;
  }
}
