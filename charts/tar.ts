/**
 * A minimal, deterministic ustar writer (POSIX.1-1988): root-owned entries, mtime 0, so the same
 * files always give the same bytes. It writes the Helm chart archive of the controller-manager's
 * ControllerDeployment and the layers and layouts of the OCI images (hack/build-*-image.ts).
 */
export interface TarEntry {
  readonly name: string;
  readonly type: 'file' | 'dir';
  readonly mode: number;
  readonly data?: Buffer;
}

const BLOCK = 512;

function field(header: Buffer, offset: number, length: number, value: string): void {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length > length) throw new Error(`tar: ${JSON.stringify(value)} does not fit ${length} bytes`);
  bytes.copy(header, offset);
}

/** `value` as zero-padded octal digits followed by NUL, `length` bytes in all. */
function octal(header: Buffer, offset: number, length: number, value: number): void {
  const digits = value.toString(8);
  if (digits.length > length - 1) throw new Error(`tar: ${value} does not fit ${length} bytes`);
  field(header, offset, length, `${digits.padStart(length - 1, '0')}\0`);
}

/** One 512-byte ustar header (POSIX.1-1988): root-owned, mtime 0. */
export function tarHeader(entry: TarEntry): Buffer {
  const header = Buffer.alloc(BLOCK);
  let name = entry.type === 'dir' && !entry.name.endsWith('/') ? `${entry.name}/` : entry.name;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', name.length - 2);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
  }
  field(header, 0, 100, name);
  octal(header, 100, 8, entry.mode);
  octal(header, 108, 8, 0); // uid
  octal(header, 116, 8, 0); // gid
  octal(header, 124, 12, entry.type === 'file' ? (entry.data?.length ?? 0) : 0);
  octal(header, 136, 12, 0); // mtime
  field(header, 148, 8, '        '); // checksum counts as spaces while summing
  field(header, 156, 1, entry.type === 'file' ? '0' : '5');
  field(header, 257, 6, 'ustar\0');
  field(header, 263, 2, '00');
  field(header, 265, 32, 'root');
  field(header, 297, 32, 'root');
  field(header, 345, 155, prefix);
  let sum = 0;
  for (const byte of header) sum += byte;
  field(header, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return header;
}

/** The entries' bytes: header, data padded to 512, and the two zero blocks that end an archive. */
export function* tarChunks(entries: Iterable<TarEntry>): Generator<Buffer> {
  for (const entry of entries) {
    yield tarHeader(entry);
    if (entry.type === 'file' && entry.data && entry.data.length > 0) {
      yield entry.data;
      const pad = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
      if (pad) yield Buffer.alloc(pad);
    }
  }
  yield Buffer.alloc(2 * BLOCK);
}

export function tarBuffer(entries: Iterable<TarEntry>): Buffer {
  return Buffer.concat([...tarChunks(entries)]);
}
