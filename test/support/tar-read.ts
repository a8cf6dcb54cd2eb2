/** Our own reader of ustar archives, to check what an image or chart archive holds. */
import { expect } from 'chai';

/** Files of a ustar archive (regular files only), for checking what the image holds. */
export function untar(archive: Buffer): Map<string, { mode: number; data: Buffer }> {
  const out = new Map<string, { mode: number; data: Buffer }>();
  for (let offset = 0; offset + 512 <= archive.length; ) {
    const header = archive.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const text = (start: number, length: number) =>
      header
        .subarray(start, start + length)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const sum = header.reduce((s, b, i) => s + (i >= 148 && i < 156 ? 32 : b), 0);
    expect(Number.parseInt(text(148, 8), 8), 'tar header checksum').to.equal(sum);
    const prefix = text(345, 155);
    const name = prefix ? `${prefix}/${text(0, 100)}` : text(0, 100);
    const size = Number.parseInt(text(124, 12), 8);
    if (text(156, 1) === '0') {
      out.set(name, {
        mode: Number.parseInt(text(100, 8), 8),
        data: archive.subarray(offset + 512, offset + 512 + size),
      });
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}
