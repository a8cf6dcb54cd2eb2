/**
 * Bytes of an inline OSC file (gardener v1.91.4
 * pkg/nodeagent/controller/operatingsystemconfig/reconciler.go): encoding `""` is the data as
 * UTF-8, `b64` standard base64 with padding (line breaks ignored, as Go's decoder does). Checked
 * strictly: Node's own decoder would silently drop bad characters and write something else than was
 * meant.
 */
const ALPHABET = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')
  ALPHABET[c.charCodeAt(0)] = 1;
const PADDING = 0x3d; // '='
const CR = 0x0d;
const LF = 0x0a;

/**
 * Standard base64 with padding, line breaks ignored: groups of 4 alphabet characters, the last
 * group may end in `=` or `==`. One pass over the characters, so its cost is linear in the size
 * (a backtracking regular expression overflowed the stack on files of a few megabytes).
 */
export function base64Problem(data: string): string | undefined {
  const bad = 'is not valid standard base64 (with padding)';
  let count = 0;
  let padding = 0;
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c === CR || c === LF) continue;
    if (c === PADDING) {
      padding++;
    } else if (padding > 0 || c >= 128 || ALPHABET[c] !== 1) {
      return bad;
    }
    count++;
  }
  return count % 4 === 0 && padding <= 2 ? undefined : bad;
}

export function inlineBytes(inline: { encoding: string; data: string }): Buffer {
  switch (inline.encoding) {
    case '':
      return Buffer.from(inline.data, 'utf8');
    case 'b64': {
      const problem = base64Problem(inline.data);
      if (problem) throw new Error(`data ${problem}`);
      return Buffer.from(inline.data.replace(/[\r\n]/g, ''), 'base64');
    }
    default:
      throw new Error(`invalid file codec id ${JSON.stringify(inline.encoding)}`);
  }
}
