/**
 * The few ASN.1 DER shapes a certificate signing request needs, written and read by hand: Node's
 * crypto makes keys and signatures and parses certificates, but neither writes nor parses a
 * PKCS#10 request, and a library for it would weigh more than the node agent's whole API client.
 * Only definite lengths and the universal types used by X.509 names occur here.
 */

export const TAG = {
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  utf8String: 0x0c,
  printableString: 0x13,
  ia5String: 0x16,
  sequence: 0x30,
  set: 0x31,
} as const;

/** A context-specific, constructed tag `[n]`. */
export function contextTag(n: number): number {
  return 0xa0 | n;
}

function lengthBytes(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let l = length; l > 0; l = Math.floor(l / 256)) bytes.unshift(l & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), lengthBytes(content.length), content]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(TAG.sequence, Buffer.concat(items));

/** A SET OF: DER sorts its elements by their encodings. */
export const setOf = (...items: Buffer[]): Buffer =>
  tlv(TAG.set, Buffer.concat([...items].sort(Buffer.compare)));

export const utf8String = (text: string): Buffer => tlv(TAG.utf8String, Buffer.from(text, 'utf8'));

/** A non-negative INTEGER from its big-endian magnitude (a leading zero keeps it positive). */
export function unsignedInteger(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  const content = (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
  return tlv(TAG.integer, content.length ? content : Buffer.from([0]));
}

export const smallInteger = (n: number): Buffer => unsignedInteger(Buffer.from([n]));

/** A BIT STRING of whole bytes. */
export const bitString = (bytes: Buffer): Buffer =>
  tlv(TAG.bitString, Buffer.concat([Buffer.from([0]), bytes]));

export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map((a) => {
    if (!/^\d+$/.test(a)) throw new Error(`not an object identifier: ${dotted}`);
    return Number(a);
  });
  if (arcs.length < 2) throw new Error(`not an object identifier: ${dotted}`);
  const body: number[] = [arcs[0]! * 40 + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    for (let a = Math.floor(arc / 128); a > 0; a = Math.floor(a / 128)) chunk.unshift(0x80 | (a & 0x7f));
    body.push(...chunk);
  }
  return tlv(TAG.oid, Buffer.from(body));
}

/** One decoded element: its tag, its content, and where the whole element ends in the input. */
export interface Element {
  readonly tag: number;
  readonly content: Buffer;
  /** The whole element (tag, length and content), e.g. to verify a signature over it. */
  readonly raw: Buffer;
}

export class DerError extends Error {
  constructor(message: string) {
    super(`malformed DER: ${message}`);
    this.name = 'DerError';
  }
}

/** The element starting at `offset`. */
export function readElement(input: Buffer, offset = 0): Element {
  if (offset + 2 > input.length) throw new DerError('truncated element');
  const tag = input[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError('multi-byte tags are not used here');
  let length = input[offset + 1]!;
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new DerError('indefinite or oversized length');
    if (offset + 2 + count > input.length) throw new DerError('truncated length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + input[offset + 2 + i]!;
    header += count;
  }
  const end = offset + header + length;
  if (end > input.length) throw new DerError('element longer than its input');
  return { tag, content: input.subarray(offset + header, end), raw: input.subarray(offset, end) };
}

/** The elements inside a constructed element's content, in order. */
export function children(content: Buffer): Element[] {
  const out: Element[] = [];
  for (let offset = 0; offset < content.length; ) {
    const element = readElement(content, offset);
    out.push(element);
    offset += element.raw.length;
  }
  return out;
}

/** Exactly one element that fills the whole input, of the expected tag. */
export function readOnly(input: Buffer, tag: number, what: string): Element {
  const element = readElement(input);
  if (element.raw.length !== input.length) throw new DerError(`${what}: trailing bytes`);
  if (element.tag !== tag) throw new DerError(`${what}: tag 0x${element.tag.toString(16)}`);
  return element;
}

export function decodeObjectIdentifier(element: Element): string {
  if (element.tag !== TAG.oid || element.content.length === 0) throw new DerError('expected an OID');
  const bytes = element.content;
  const first = bytes[0]!;
  const arcs = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  let value = 0;
  for (const b of bytes.subarray(1)) {
    value = value * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      arcs.push(value);
      value = 0;
    }
  }
  return arcs.join('.');
}

/** The text of a string element (UTF8String, PrintableString, IA5String). */
export function decodeString(element: Element): string {
  const { tag } = element;
  if (tag !== TAG.utf8String && tag !== TAG.printableString && tag !== TAG.ia5String)
    throw new DerError(`expected a string, got tag 0x${tag.toString(16)}`);
  return element.content.toString('utf8');
}

/** PEM armour around DER, 64 characters a line. */
export function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The DER of the first PEM block with this label; undefined when there is none. */
export function pemBlock(text: string, label: string): Buffer | undefined {
  const match = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`).exec(text);
  return match ? Buffer.from(match[1]!.replace(/\s+/g, ''), 'base64') : undefined;
}
