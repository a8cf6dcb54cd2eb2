/**
 * Bytes of an inline OSC file (node-side §7.6): encoding `""` is the data as UTF-8, `b64` standard
 * base64 with padding (line breaks ignored, as Go's decoder does). Checked strictly: Node's own
 * decoder would silently drop bad characters and write something else than was meant.
 */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function base64Problem(data: string): string | undefined {
  return BASE64.test(data.replace(/[\r\n]/g, '')) ? undefined : 'is not valid standard base64 (with padding)';
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
