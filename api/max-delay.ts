/**
 * The longest per-node reconciliation delay of a shoot (gardener v1.91.4
 * pkg/gardenlet/operation/shoot/shoot.go): the annotation
 * `shoot.gardener.cloud/cloud-config-execution-max-delay-seconds`, default 300 s. As upstream,
 * values above 1800 are ignored (the default stays). Unlike upstream, negative or unparsable values
 * are not accepted: they are rejected with a reason and the default is used
 * (docs/compatibility.md).
 */
import { ANNOTATION } from './well-known/annotations.js';

export const DEFAULT_MAX_DELAY_SECONDS = 300;
export const MAX_ACCEPTED_MAX_DELAY_SECONDS = 1800;

export type MaxDelay =
  | { readonly seconds: number; readonly source: 'default' | 'annotation' }
  | { readonly seconds: number; readonly source: 'ignored'; readonly reason: string }
  | { readonly seconds: number; readonly source: 'rejected'; readonly reason: string };

/** Go's strconv.Atoi: optional sign, decimal digits, no spaces, int64 range. */
function atoi(text: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = BigInt(text);
  if (value > 2n ** 63n - 1n || value < -(2n ** 63n)) return undefined;
  return Number(value);
}

export function maxDelayFromShoot(annotations: Readonly<Record<string, string>> | undefined): MaxDelay {
  const raw = annotations?.[ANNOTATION.maxDelaySeconds];
  if (raw === undefined) return { seconds: DEFAULT_MAX_DELAY_SECONDS, source: 'default' };
  const where = `annotation ${ANNOTATION.maxDelaySeconds}`;
  const value = atoi(raw);
  if (value === undefined) {
    return {
      seconds: DEFAULT_MAX_DELAY_SECONDS,
      source: 'rejected',
      reason: `${where}: "${raw}" is not an integer number of seconds`,
    };
  }
  if (value < 0) {
    return {
      seconds: DEFAULT_MAX_DELAY_SECONDS,
      source: 'rejected',
      reason: `${where}: ${value} is negative`,
    };
  }
  if (value > MAX_ACCEPTED_MAX_DELAY_SECONDS) {
    return {
      seconds: DEFAULT_MAX_DELAY_SECONDS,
      source: 'ignored',
      reason: `${where}: ${value} exceeds ${MAX_ACCEPTED_MAX_DELAY_SECONDS} and is ignored`,
    };
  }
  return { seconds: value, source: 'annotation' };
}

/**
 * How long the seed waits for every node to report the new OSC (gardener v1.91.4
 * pkg/gardenlet/operation/shoot/shoot.go): with the node agent the max delay plus 3 minutes, with
 * the legacy downloader two 30 s polls plus the max delay.
 */
export function allNodesUpdatedTimeoutSeconds(
  maxDelaySeconds: number,
  useGardenerNodeAgent: boolean,
): number {
  return useGardenerNodeAgent ? maxDelaySeconds + 180 : 2 * 30 + maxDelaySeconds;
}
