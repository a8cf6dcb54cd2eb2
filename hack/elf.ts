/**
 * Just enough of an ELF reader to build images for an architecture this machine cannot run: the
 * machine, the program interpreter (PT_INTERP) and the shared libraries a binary needs (DT_NEEDED
 * of PT_DYNAMIC), read from the file instead of running `ldd`, which executes the binary's loader
 * and so works only for the build machine's own architecture. 64-bit little-endian only (x86-64 and
 * AArch64, the two architectures the images are built for). Layout: the System V gABI, "ELF Header",
 * "Program Header" and "Dynamic Section" (https://refspecs.linuxfoundation.org/elf/gabi4+/contents.html).
 */

/** e_machine values (gABI): the two the images are built for. */
export const EM_X86_64 = 62;
export const EM_AARCH64 = 183;

const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const PT_INTERP = 3;
const DT_NULL = 0n;
const DT_NEEDED = 1n;
const DT_STRTAB = 5n;

export interface ElfInfo {
  readonly machine: number;
  /** The program interpreter (the dynamic loader's path); undefined for a static binary or a library. */
  readonly interpreter?: string;
  /** DT_NEEDED, in the file's order. */
  readonly needed: readonly string[];
}

function cString(data: Buffer, offset: number): string {
  const end = data.indexOf(0, offset);
  if (end === -1) throw new Error('ELF: unterminated string');
  return data.toString('latin1', offset, end);
}

export function readElf(data: Buffer): ElfInfo {
  if (data.length < 64 || data.readUInt32BE(0) !== 0x7f454c46) throw new Error('not an ELF file');
  if (data[4] !== 2 || data[5] !== 1) throw new Error('ELF: only 64-bit little-endian files are read');
  const machine = data.readUInt16LE(0x12);
  const phoff = Number(data.readBigUInt64LE(0x20));
  const phentsize = data.readUInt16LE(0x36);
  const phnum = data.readUInt16LE(0x38);
  const segments = Array.from({ length: phnum }, (_, i) => {
    const at = phoff + i * phentsize;
    return {
      type: data.readUInt32LE(at),
      offset: Number(data.readBigUInt64LE(at + 8)),
      vaddr: data.readBigUInt64LE(at + 16),
      filesz: data.readBigUInt64LE(at + 32),
    };
  });
  const interp = segments.find((s) => s.type === PT_INTERP);
  const dynamic = segments.find((s) => s.type === PT_DYNAMIC);
  const needed: number[] = [];
  let strtab: bigint | undefined;
  if (dynamic) {
    for (let at = dynamic.offset; at + 16 <= dynamic.offset + Number(dynamic.filesz); at += 16) {
      const tag = data.readBigInt64LE(at);
      const value = data.readBigUInt64LE(at + 8);
      if (tag === DT_NULL) break;
      if (tag === DT_NEEDED) needed.push(Number(value));
      if (tag === DT_STRTAB) strtab = value;
    }
  }
  let names: string[] = [];
  if (needed.length > 0) {
    if (strtab === undefined) throw new Error('ELF: DT_NEEDED without DT_STRTAB');
    // DT_STRTAB is a virtual address: the PT_LOAD segment holding it maps it to a file offset.
    const load = segments.find(
      (s) => s.type === PT_LOAD && s.vaddr <= strtab! && strtab! < s.vaddr + s.filesz,
    );
    if (!load) throw new Error('ELF: DT_STRTAB outside every PT_LOAD segment');
    const table = load.offset + Number(strtab - load.vaddr);
    names = needed.map((n) => cString(data, table + n));
  }
  return {
    machine,
    ...(interp ? { interpreter: cString(data, interp.offset) } : {}),
    needed: names,
  };
}
