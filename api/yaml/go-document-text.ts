/**
 * The bytes of a document (osc.yaml, a config file) as Kubernetes' Go decoders see them. A buffer
 * whose first non-blank byte is `{` is JSON (apimachinery's IsJSONBuffer): Go's JSON decoder
 * replaces each byte that is not part of valid UTF-8 with U+FFFD. Anything else is YAML, and
 * go-yaml refuses invalid UTF-8 with one of its reader errors. Node's own decoding would replace
 * silently in both cases, so a file would be written with other bytes than its author meant.
 */

export type DocumentText = { ok: true; text: string } | { ok: false; error: string };

/** One step of Go's utf8.DecodeRune: the code point and its width, or -1 and 1 when invalid. */
function decodeRune(b: Uint8Array, i: number): [number, number] {
  const c0 = b[i]!;
  if (c0 < 0x80) return [c0, 1];
  const width = c0 >= 0xf0 && c0 <= 0xf4 ? 4 : c0 >= 0xe0 ? 3 : c0 >= 0xc2 && c0 <= 0xdf ? 2 : 0;
  if (width === 0 || i + width > b.length) return [-1, 1];
  let value = c0 & (width === 2 ? 0x1f : width === 3 ? 0x0f : 0x07);
  for (let k = 1; k < width; k++) {
    const c = b[i + k]!;
    if ((c & 0xc0) !== 0x80) return [-1, 1];
    value = (value << 6) | (c & 0x3f);
  }
  const min = width === 2 ? 0x80 : width === 3 ? 0x800 : 0x10000;
  if (value < min || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return [-1, 1];
  return [value, width];
}

/** Go's JSON decoder: every invalid byte becomes U+FFFD, valid sequences stay. */
export function goJsonText(bytes: Uint8Array): string {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; ) {
    const [rune, width] = decodeRune(bytes, i);
    if (rune === -1) {
      parts.push(Buffer.from(bytes.subarray(start, i)).toString('utf8'), '\uFFFD');
      start = i + 1;
    }
    i += width;
  }
  parts.push(Buffer.from(bytes.subarray(start)).toString('utf8'));
  return parts.join('');
}

/** go-yaml's reader check (reader.go, yaml_parser_update_buffer): its message for the first problem. */
export function goYamlUtf8Problem(bytes: Uint8Array): string | undefined {
  for (let i = 0; i < bytes.length; ) {
    const c0 = bytes[i]!;
    const width =
      (c0 & 0x80) === 0
        ? 1
        : (c0 & 0xe0) === 0xc0
          ? 2
          : (c0 & 0xf0) === 0xe0
            ? 3
            : (c0 & 0xf8) === 0xf0
              ? 4
              : 0;
    if (width === 0) return 'invalid leading UTF-8 octet';
    if (i + width > bytes.length) return 'incomplete UTF-8 octet sequence';
    let value = width === 1 ? c0 : c0 & (width === 2 ? 0x1f : width === 3 ? 0x0f : 0x07);
    for (let k = 1; k < width; k++) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80) return 'invalid trailing UTF-8 octet';
      value = (value << 6) | (c & 0x3f);
    }
    const min = width === 1 ? 0 : width === 2 ? 0x80 : width === 3 ? 0x800 : 0x10000;
    if (value < min) return 'invalid length of a UTF-8 sequence';
    if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) return 'invalid Unicode character';
    i += width;
  }
  return undefined;
}

/** apimachinery's IsJSONBuffer: the first byte after spaces, tabs and line breaks is `{`. */
export function isJsonBuffer(bytes: Uint8Array): boolean {
  for (const b of bytes) {
    if (b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a) continue;
    return b === 0x7b;
  }
  return false;
}

export function goDocumentText(bytes: Uint8Array): DocumentText {
  if (isJsonBuffer(bytes)) return { ok: true, text: goJsonText(bytes) };
  const problem = goYamlUtf8Problem(bytes);
  return problem
    ? { ok: false, error: `yaml: ${problem}` }
    : { ok: true, text: Buffer.from(bytes).toString('utf8') };
}
