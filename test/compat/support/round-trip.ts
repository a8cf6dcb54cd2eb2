/**
 * Check 4: documents read by upstream's node agent decoder and written back by gardenlet's encoder
 * (the oracle), against our tolerant decoder and our Go-shaped writer. Equal bytes mean equal
 * meaning: every zero value Go filled in is written out by both.
 */
import {
  decodeOperatingSystemConfig,
  formatFieldErrors,
  type GardenerVersion,
  oscWire,
  stringifyYaml,
} from '../../../api/index.js';
import type { Differences } from './difference.js';
import type { Oracle } from './oracle.js';

/** The text of a generated document: YAML, or JSON for every fourth one (both reach the decoder). */
export function documentText(doc: Record<string, unknown>, i: number): string {
  return i % 4 === 3 ? JSON.stringify(doc) : stringifyYaml(doc);
}

/** What we make of a text: Go's bytes for the decoded object, or the error. */
export function ourRoundTrip(
  text: string,
  contract: GardenerVersion = 'v1.91.4',
): { yaml: string } | { error: string } {
  const decoded = decodeOperatingSystemConfig(text);
  return decoded.ok
    ? { yaml: stringifyYaml(oscWire(decoded.value, contract)) }
    : { error: formatFieldErrors(decoded.errors) };
}

export async function roundTripAll(
  oracle: Pick<Oracle, 'ask'>,
  d: Differences,
  texts: readonly string[],
  contract: GardenerVersion = 'v1.91.4',
): Promise<number> {
  const results = await oracle.ask<({ yaml: string } | { error: string })[]>('roundTrip', {
    documents: texts.map((t) => Buffer.from(t).toString('base64')),
  });
  let compared = 0;
  results.forEach((theirs, i) => {
    const ours = ourRoundTrip(texts[i]!, contract);
    const subject = `document ${i}: ${texts[i]!.length > 300 ? `${texts[i]!.slice(0, 300)}…` : texts[i]}`;
    if ('error' in theirs || 'error' in ours) {
      d.compare(
        subject,
        '',
        'decodes',
        'error' in ours ? `error: ${ours.error}` : 'yes',
        'error' in theirs ? `error: ${theirs.error}` : 'yes',
      );
      return;
    }
    compared++;
    d.compare(subject, '', 'written back', ours.yaml, theirs.yaml);
  });
  return compared;
}
