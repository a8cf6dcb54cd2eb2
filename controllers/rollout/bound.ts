/**
 * Keeps a pool's rollout state small enough for the status ConfigMap (docs/rollout.md, "State and
 * restarts"): a ConfigMap holds at most 1 MiB, and every write of the status fails beyond that,
 * which would freeze every rollout of the shoot. About 1,000 failed nodes with 1 KiB messages each
 * would exceed it. So messages are truncated, and the per-node lists are capped, with a count of
 * what was left out. Pure.
 */
import type { NodeFailure, PoolRollout } from './state.js';

/** Longest failure message and halt reason kept (the agent's messages reach 1,024 characters). */
export const MAX_MESSAGE = 256;
export const MAX_REASON = 64;
/** Failures recorded per pool with their message; later ones keep node, reason and time. */
export const MAX_DETAILED_FAILURES = 100;
/** Failures recorded per pool at all; beyond, a failure is counted, not named. */
export const MAX_FAILURES = 1000;
/** Node names kept per list (first, passed, skipped) and stalled lines. */
export const MAX_NAMES = 2000;
export const MAX_STALLED = 100;

export const truncate = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

export function boundFailure(f: NodeFailure): NodeFailure {
  return { ...f, reason: truncate(f.reason, MAX_REASON), message: truncate(f.message, MAX_MESSAGE) };
}

export function boundPool(state: PoolRollout): PoolRollout {
  const out: { -readonly [K in keyof PoolRollout]: PoolRollout[K] } = { ...state };
  if (state.failures.length > MAX_DETAILED_FAILURES)
    out.failures = state.failures.map((f, i) =>
      i < MAX_DETAILED_FAILURES || !f.message ? f : { ...f, message: '' },
    );
  if (state.reason !== undefined) out.reason = truncate(state.reason, MAX_MESSAGE * 2);
  if (state.first.length > MAX_NAMES) out.first = state.first.slice(0, MAX_NAMES);
  if (state.passed && state.passed.length > MAX_NAMES) out.passed = state.passed.slice(0, MAX_NAMES);
  if (state.skipped && state.skipped.length > MAX_NAMES) out.skipped = state.skipped.slice(0, MAX_NAMES);
  if (state.stalled && state.stalled.length > MAX_STALLED) out.stalled = state.stalled.slice(0, MAX_STALLED);
  return out;
}
