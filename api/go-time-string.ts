/**
 * Go's `time.Time.String()` of a metav1.Time read from JSON: `2006-01-02 15:04:05.999999999 -0700 MST`.
 * metav1.Time.UnmarshalJSON converts to the process's local zone; gardenlet's image sets none, so
 * that zone is UTC and prints `+0000 UTC` (k8s.io/apimachinery v0.36.4
 * pkg/apis/meta/v1/time.go; Go src/time/format.go). The fraction drops trailing zeros; a time read
 * from JSON has no monotonic reading, so there is no `m=` part.
 */
import type { Instant } from './time.js';

export function goTimeString(t: Instant): string {
  const base = new Date(t.epochSeconds * 1000).toISOString();
  const date = base.slice(0, 10);
  const clock = base.slice(11, 19);
  const frac = t.nanos === 0 ? '' : `.${String(t.nanos).padStart(9, '0').replace(/0+$/, '')}`;
  return `${date} ${clock}${frac} +0000 UTC`;
}
