/**
 * The rollout of one worker pool, decided (docs/rollout.md has the state machine):
 *
 *   (new checksum) ──► Progressing ──every node updated──► Completed
 *                        │    ▲
 *           failures >   │    │ resume (failures accepted)
 *           tolerated    ▼    │
 *                       Halted ──unguarded──► Unguarded ──every node updated──► Completed
 *
 * A new checksum in the pool's secret starts a new rollout from any phase; one that supersedes an
 * unfinished rollout reaches that rollout's failed nodes first. Each decision also says which
 * checksum every node of the pool may apply: the target for nodes that run it, tried it, are
 * permitted in the current wave, or never applied anything (a new machine takes the newest at
 * once); for every other node the checksum it runs, so its agent holds. Pure.
 */
import { formatGoDuration } from '../../api/index.js';
import type { RolloutSettings } from '../../seed/manager/config.js';
import { boundFailure, boundPool, MAX_FAILURES } from './bound.js';
import { brokeAfterPassing, healthy, judgeMember, reportedFailure } from './gate.js';
import { type FailureMark, markChanges, restoreFailures } from './halt-marks.js';
import type { NodeView, PoolObservation } from './observe.js';
import type { RolloutAction } from './settings.js';
import { REASON_WAVE_TIMEOUT, type StallAction, type StallKind, stallOf } from './stall.js';
import type { NodeFailure, PoolRollout, WaveMember } from './state.js';
import { type IgnoredClaim, trustClaims } from './trust.js';
import { nextWave, orderCandidates, staggered } from './waves.js';

export interface RolloutEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface PoolDecisionInput {
  readonly settings: RolloutSettings;
  readonly now: number;
  /** The shoot's delay window (its max delay), in milliseconds: a wave spreads at its pace. */
  readonly windowMs: number;
  readonly observation: PoolObservation;
  readonly previous?: PoolRollout;
  readonly action?: RolloutAction;
  /**
   * When this gate started deciding (ms): a wave's timeout counts from here at the earliest, so
   * the controller-manager's own outage is not a node's delay. Default: the start of time.
   */
  readonly gateSince?: number;
}

/** A node the wave waited for beyond its timeout, first reported in this decision. */
export interface StalledNode {
  readonly node: string;
  readonly kind: StallKind;
  readonly action: StallAction;
}

export interface PoolDecision {
  /** Undefined while the pool has no OSC secret (nothing to roll out, nothing changes). */
  readonly state?: PoolRollout;
  /** The permission each node must carry, for the nodes whose annotation differs. */
  readonly permissions: ReadonlyMap<string, string>;
  readonly events: readonly RolloutEvent[];
  /** When to decide again without an event. */
  readonly recheckAt?: number;
  /** Failures first recorded in this decision. */
  readonly newFailures: readonly NodeFailure[];
  /** The rollout halted in this decision. */
  readonly halted: boolean;
  /** Claims about the target the decision left out: made without the permission for it (trust.ts). */
  readonly ignored: readonly IgnoredClaim[];
  /** Nodes first reported stalled in this decision. */
  readonly stalls: readonly StalledNode[];
  /** The failure marks to write on Nodes (null: remove), halt-marks.ts. */
  readonly marks: ReadonlyMap<string, FailureMark | null>;
}

export const short = (checksum: string): string => checksum.slice(0, 12);

/** Announcements kept pending per pool (the newest): a bound for an event API that stays down. */
export const MAX_PENDING_ANNOUNCEMENTS = 20;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The node must still get the target: it neither runs nor tried it. */
function needsTarget(node: NodeView, target: string): boolean {
  return node.applied !== undefined && node.applied !== target && node.report?.checksum !== target;
}

function counts(nodes: readonly NodeView[], state: PoolRollout) {
  const failed = new Set(state.failures.map((f) => f.node));
  for (const n of nodes) if (reportedFailure(n, state.target)) failed.add(n.name);
  const inWave = new Set(state.members.map((m) => m.node));
  let updated = 0;
  let failedCount = 0;
  for (const n of nodes) {
    if (failed.has(n.name)) failedCount++;
    else if (n.applied === state.target && !inWave.has(n.name)) updated++;
  }
  // failures beyond the recorded ones (bound.ts) are nodes not named: they are not pending
  const omitted = Math.min(state.omittedFailures?.count ?? 0, nodes.length - updated - failedCount);
  failedCount += omitted;
  return { updated, failed: failedCount, pending: nodes.length - updated - failedCount };
}

function describe(target: string, f: NodeFailure): string {
  return `node ${f.node}, checksum ${short(target)}: ${f.reason}: ${f.message}`;
}

export function decidePool(input: PoolDecisionInput): PoolDecision {
  const { settings, now } = input;
  const target = input.observation.target;
  const events: RolloutEvent[] = [];
  const newFailures: NodeFailure[] = [];
  if (!target)
    return {
      state: input.previous,
      permissions: new Map(),
      events,
      newFailures,
      halted: false,
      ignored: [],
      stalls: [],
      marks: new Map(),
    };
  const trusted = trustClaims(input.observation.nodes, target);
  const obs = { ...input.observation, nodes: trusted.nodes };
  const pool = obs.pool;
  const nodes = new Map(obs.nodes.map((n) => [n.name, n]));
  const prev = input.previous;
  let state: Mutable<PoolRollout>;

  if (!prev || prev.target !== target) {
    const pending = obs.nodes.filter((n) => needsTarget(n, target));
    const unfinished = prev && prev.phase !== 'Completed' ? prev : undefined;
    // the nodes the last configuration broke (halted, tolerated, accepted or unguarded) come first
    const first = prev
      ? obs.nodes
          .filter((n) => prev.failures.some((f) => f.node === n.name) || reportedFailure(n, prev.target))
          .map((n) => n.name)
      : [];
    state = {
      target,
      phase: prev || pending.length > 0 ? 'Progressing' : 'Completed',
      startedAt: now,
      ...(prev || pending.length > 0 ? {} : { completedAt: now }),
      wave: 0,
      lastWaveSize: 0,
      members: [],
      failures: [],
      first,
      ...(unfinished ? { supersedes: unfinished.target } : {}),
      updated: 0,
      failed: 0,
      pending: 0,
    };
    // no status at all: the failures of this checksum the Nodes carry come back before any canary
    if (!prev) state.failures = restoreFailures(obs.nodes, target, now);
    if (unfinished)
      events.push({
        type: 'Normal',
        reason: 'RolloutSuperseded',
        message: `pool ${pool}: ${short(target)} supersedes the ${unfinished.phase.toLowerCase()} rollout of ${short(unfinished.target)}${first.length > 0 ? `; its ${first.length} failed node(s) first: ${first.join(', ')}` : ''}`,
      });
    else if (state.phase === 'Progressing')
      events.push({
        type: 'Normal',
        reason: 'RolloutStarted',
        message: `pool ${pool}: rolling out ${short(target)} to ${pending.length} node(s) in waves${first.length > 0 ? `; the ${first.length} node(s) the last configuration failed first: ${first.join(', ')}` : ''}`,
      });
  } else {
    state = { ...prev };
  }

  // the operator's action
  if (input.action === 'resume' && state.phase === 'Halted') {
    const accepted =
      state.failures.filter((f) => !f.accepted).length +
      (state.omittedFailures?.count ?? 0) -
      (state.omittedFailures?.accepted ?? 0);
    state.failures = state.failures.map((f) => ({ ...f, accepted: true }));
    if (state.omittedFailures)
      state.omittedFailures = { count: state.omittedFailures.count, accepted: state.omittedFailures.count };
    state.phase = 'Progressing';
    state.haltedSince = undefined;
    state.reason = undefined;
    events.push({
      type: 'Normal',
      reason: 'RolloutResumed',
      message: `pool ${pool}: resumed the rollout of ${short(target)} as it is; ${accepted} failure(s) accepted`,
    });
  } else if (input.action === 'unguarded' && (state.phase === 'Progressing' || state.phase === 'Halted')) {
    const waiting = new Set(state.members.map((m) => m.node));
    const rest = orderCandidates(
      obs.nodes.filter(
        (n) =>
          needsTarget(n, target) && !waiting.has(n.name) && !state.failures.some((f) => f.node === n.name),
      ),
      new Set(state.first),
    );
    state.members = [...state.members, ...staggered(rest, now, input.windowMs, obs.nodes.length)];
    state.phase = 'Unguarded';
    state.haltedSince = undefined;
    state.reason = undefined;
    events.push({
      type: 'Warning',
      reason: 'RolloutUnguarded',
      message: `pool ${pool}: the rollout of ${short(target)} goes on without the gate: ${rest.length} more node(s) within the delay window`,
    });
  }

  const failedNode = (name: string) => state.failures.some((f) => f.node === name);
  const fail = (node: string, reason: string, message: string) => {
    const failure = boundFailure({ node, reason, message, at: now });
    newFailures.push(failure);
    // a full list counts the failure without naming it (bound.ts): the status stays writable
    if (state.failures.length >= MAX_FAILURES) {
      const o = state.omittedFailures;
      state.omittedFailures = { count: (o?.count ?? 0) + 1, accepted: o?.accepted ?? 0 };
    } else state.failures = [...state.failures, failure];
  };

  // the gate, for the current wave
  let recheckAt: number | undefined;
  const due = (t: number | undefined) => {
    if (t !== undefined && t > now) recheckAt = recheckAt === undefined ? t : Math.min(recheckAt, t);
  };
  const members: WaveMember[] = [];
  const stalls: StalledNode[] = [];
  const stalledLines: string[] = [];
  const skipped: string[] = [];
  const waiting: string[] = [];
  // nodes of passed waves: breakage after their settle time still counts while the rollout runs
  const passed: string[] = [];
  for (const name of state.passed ?? []) {
    const n = nodes.get(name);
    if (!n || n.applied !== target || n.leaving || failedNode(name)) continue;
    const broken = state.phase === 'Progressing' ? brokeAfterPassing(n) : undefined;
    if (broken) fail(name, broken.reason, broken.message);
    else passed.push(name);
  }
  for (const member of state.members) {
    if (state.phase === 'Unguarded') {
      // no gate, but the rollout ends only once every node said how its apply went
      const n = nodes.get(member.node);
      if (n && (needsTarget(n, target) || (n.report?.checksum === target && n.report.result === 'Verifying')))
        members.push(member);
      continue;
    }
    const node = nodes.get(member.node);
    const verdict = judgeMember(member, node, target, now, settings.settleTime);
    if (verdict.kind === 'fail') fail(member.node, verdict.reason, verdict.message);
    else if (verdict.kind === 'pass') passed.push(member.node);
    else if (verdict.kind === 'wait') {
      const stall = node && stallOf(verdict.member, node, now, settings, input.gateSince ?? 0);
      if (!stall) {
        members.push(verdict.member);
        due(verdict.until);
        continue;
      }
      const line = `${member.node} (${stall.why})`;
      if (stall.action !== 'wait' || !member.stalled) {
        stalls.push({ node: member.node, kind: stall.kind, action: stall.action });
        stalledLines.push(
          `${line}: ${stall.action === 'fail' ? 'failed' : stall.action === 'skip' ? 'skipped' : 'waiting'}`,
        );
      }
      if (stall.action === 'fail')
        fail(
          member.node,
          REASON_WAVE_TIMEOUT,
          `waited ${formatGoDuration(settings.waveTimeout * 1e6)} since its permission for ${short(target)}: ${stall.why}`,
        );
      else if (stall.action === 'skip') skipped.push(member.node);
      else {
        waiting.push(line);
        members.push({ ...verdict.member, stalled: true });
      }
    }
  }
  if (skipped.length > 0) state.skipped = [...(state.skipped ?? []), ...skipped];
  if (waiting.length > 0) state.stalled = waiting;
  else delete state.stalled;
  if (stalledLines.length > 0)
    events.push({
      type: 'Warning',
      reason: 'RolloutWaveStalled',
      message: `pool ${pool}: wave ${state.wave} of ${short(target)} waited longer than ${formatGoDuration(settings.waveTimeout * 1e6)} for ${stalledLines.length} node(s) after their permission (stalledNodes: ${settings.stalledNodes}): ${stalledLines.join('; ')}`,
    });
  state.members = members;
  if (passed.length > 0) state.passed = passed;
  else delete state.passed;

  // failures reported outside the wave: a new machine, a node of an earlier wave applying again
  for (const n of obs.nodes) {
    if (
      reportedFailure(n, target) &&
      !failedNode(n.name) &&
      !members.some((m) => m.node === n.name) &&
      // a report stays on its Node: once the list is full it would be counted at every decision
      state.failures.length < MAX_FAILURES
    )
      fail(n.name, n.report!.reason, n.report!.message);
  }

  // halt
  let halted = false;
  const open = state.failures.filter((f) => !f.accepted);
  const openOmitted = (state.omittedFailures?.count ?? 0) - (state.omittedFailures?.accepted ?? 0);
  if (state.phase === 'Progressing' && open.length + openOmitted > settings.failuresTolerated) {
    const first = open[0] ?? state.failures[0]!;
    state.phase = 'Halted';
    state.haltedSince = now;
    state.reason = describe(target, first);
    halted = true;
    events.push({
      type: 'Warning',
      reason: 'RolloutHalted',
      message: `pool ${pool}: halted the rollout of ${short(target)} in wave ${state.wave}: ${state.reason}`,
    });
  }

  // the next wave, or done
  if ((state.phase === 'Progressing' || state.phase === 'Unguarded') && state.members.length === 0) {
    const left = new Set(state.skipped ?? []);
    const candidates = obs.nodes.filter(
      (n) => needsTarget(n, target) && !failedNode(n.name) && !n.leaving && !left.has(n.name),
    );
    if (candidates.length === 0 || state.phase === 'Unguarded') {
      state.phase = 'Completed';
      state.completedAt = now;
      delete state.passed;
      const updated = obs.nodes.filter((n) => n.applied === target && !failedNode(n.name)).length;
      events.push({
        type: 'Normal',
        reason: 'RolloutCompleted',
        message: `pool ${pool}: ${short(target)} rolled out to ${updated} node(s) in ${state.wave} wave(s)${state.failures.length > 0 ? `; ${state.failures.length} node(s) failed` : ''}${state.skipped?.length ? `; ${state.skipped.length} node(s) skipped, they keep what they run: ${state.skipped.join(', ')}` : ''}`,
      });
    } else {
      const first = new Set(state.first);
      const plan = nextWave(
        settings,
        state.lastWaveSize,
        orderCandidates(candidates, first),
        first,
        obs.nodes.length,
      );
      state.members = staggered(plan.nodes, now, input.windowMs, obs.nodes.length);
      state.lastWaveSize = plan.lastWaveSize;
      state.wave++;
      state.waveStartedAt = now;
      const zones = [...new Set(plan.nodes.map((n) => n.zone ?? '-'))].join(', ');
      events.push({
        type: 'Normal',
        reason: 'RolloutWaveStarted',
        message: `pool ${pool}: wave ${state.wave} (${plan.kind === 'first' ? 'the nodes the superseded rollout failed' : plan.kind}) of ${short(target)}: ${plan.nodes.length} node(s) in zone(s) ${zones}: ${plan.nodes.map((n) => n.name).join(', ')}`,
      });
    }
  }

  // grants due now
  if (state.phase === 'Progressing' || state.phase === 'Unguarded') {
    state.members = state.members.map((m) => {
      if (m.grantedAt !== undefined) return m;
      if (m.grantAt > now) {
        due(m.grantAt);
        return m;
      }
      const node = nodes.get(m.node);
      return { ...m, grantedAt: now, baseline: node ? healthy(node) : false };
    });
  }
  if (state.members.length > 0 && state.phase !== 'Halted') due(now + settings.checkInterval);

  // permissions
  const granted = new Set(state.members.filter((m) => m.grantedAt !== undefined).map((m) => m.node));
  const permissions = new Map<string, string>();
  for (const n of obs.nodes) {
    const keepsTarget =
      n.applied === undefined ||
      (n.applied === target && !n.outOfTurn) ||
      n.report?.checksum === target ||
      failedNode(n.name) ||
      (granted.has(n.name) && state.phase !== 'Halted');
    // held at what it runs; a node that claims the target out of turn keeps the permission it has
    const desired = keepsTarget ? target : n.outOfTurn ? n.permitted! : n.applied!;
    if (n.permitted !== desired) permissions.set(n.name, desired);
  }

  Object.assign(state, counts(obs.nodes, state));
  // every transition is announced at least once: pending until the reconciler wrote its event
  const announce = [...(prev?.announce ?? []), ...events].slice(-MAX_PENDING_ANNOUNCEMENTS);
  if (announce.length > 0) state.announce = announce;
  else delete state.announce;
  state = { ...boundPool(state) };
  return {
    state,
    permissions,
    events,
    recheckAt,
    newFailures,
    halted,
    ignored: trusted.ignored,
    stalls,
    marks: markChanges(obs.nodes, state),
  };
}
