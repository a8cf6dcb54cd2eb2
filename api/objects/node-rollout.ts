/**
 * What the rollout gate puts on a Node, read and written by both halves: the seed's permission
 * (which checksum the agent may apply) and the agent's report of its last apply. Reading is
 * tolerant (anything unexpected is "unknown", never an exception); writing produces exactly the
 * annotations of `APPLY_REPORT_ANNOTATION`.
 */
import { formatRfc3339, parseRfc3339 } from '../time.js';
import {
  APPLY_REPORT_ANNOTATION,
  APPLY_RESULTS,
  type ApplyResultValue,
  PERMITTED_CHECKSUM_ANNOTATION,
} from '../well-known/rollout.js';

type Annotations = Readonly<Record<string, string>> | null | undefined;

/** A checksum as gardenlet writes `checksum/data-script`: sha256, 64 lowercase hex digits. */
export const CHECKSUM_PATTERN = /^[0-9a-f]{64}$/;

export type Permission =
  /** No permission annotation: the agent applies as upstream's does. */
  | { readonly kind: 'none' }
  | { readonly kind: 'checksum'; readonly checksum: string }
  /** An annotation that is no checksum: the agent holds (a gate that cannot decide holds). */
  | { readonly kind: 'invalid'; readonly value: string };

export function readPermission(annotations: Annotations): Permission {
  const value = annotations?.[PERMITTED_CHECKSUM_ANNOTATION];
  if (value === undefined) return { kind: 'none' };
  return CHECKSUM_PATTERN.test(value) ? { kind: 'checksum', checksum: value } : { kind: 'invalid', value };
}

export interface ApplyReport {
  readonly checksum: string;
  readonly result: ApplyResultValue;
  /** One of APPLY_REASON (an unknown reason from a newer agent is kept as it is). */
  readonly reason: string;
  readonly message: string;
  /** Milliseconds since the epoch; undefined when missing or unreadable. */
  readonly time?: number;
}

/** Longest message written: annotations share 256 KiB per object. */
export const MAX_REPORT_MESSAGE = 1024;

/** The agent's last report, or undefined when there is none or it is not readable. */
export function readApplyReport(annotations: Annotations): ApplyReport | undefined {
  const checksum = annotations?.[APPLY_REPORT_ANNOTATION.checksum];
  const result = annotations?.[APPLY_REPORT_ANNOTATION.result] as ApplyResultValue | undefined;
  if (!checksum || !result || !APPLY_RESULTS.includes(result)) return undefined;
  let time: number | undefined;
  const text = annotations?.[APPLY_REPORT_ANNOTATION.time];
  if (text) {
    try {
      time = parseRfc3339(text).epochSeconds * 1000;
    } catch {
      time = undefined;
    }
  }
  return {
    checksum,
    result,
    reason: annotations?.[APPLY_REPORT_ANNOTATION.reason] ?? '',
    message: annotations?.[APPLY_REPORT_ANNOTATION.message] ?? '',
    ...(time === undefined ? {} : { time }),
  };
}

/** The annotations of a report, for a merge patch of the Node. */
export function applyReportAnnotations(report: Omit<ApplyReport, 'time'>, now: Date): Record<string, string> {
  const message =
    report.message.length > MAX_REPORT_MESSAGE
      ? `${report.message.slice(0, MAX_REPORT_MESSAGE - 1)}…`
      : report.message;
  return {
    [APPLY_REPORT_ANNOTATION.checksum]: report.checksum,
    [APPLY_REPORT_ANNOTATION.result]: report.result,
    [APPLY_REPORT_ANNOTATION.reason]: report.reason,
    [APPLY_REPORT_ANNOTATION.message]: message,
    [APPLY_REPORT_ANNOTATION.time]: formatRfc3339(now),
  };
}
