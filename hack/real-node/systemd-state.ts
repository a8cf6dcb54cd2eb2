/**
 * What the node's own systemd says, read from outside: unit properties (`systemctl show`) and the
 * units it started, from its journal. A unit's new invocation (a new InvocationID) is attributed
 * to what caused it, so an apply can be judged on what it did alone:
 *  - `restart-policy`: systemd's own Restart= (the journal says "Scheduled restart job" for the
 *    invocation before, message 5eb03494b6584870a536b337290809b3);
 *  - `timer`: the unit's timer elapsed (the start follows the timer's LastTriggerUSec within 2 s;
 *    only a timer's last elapse is known, so one elapsing twice in a window is told apart once: the
 *    timers of the OSC and the image elapse every 10 minutes or more rarely);
 *  - `job`: anything else, i.e. a start, restart or stop job somebody asked for (the agent).
 */
import { sleep } from '../landscape/eventually.js';
import type { Container } from './container.js';

/** systemd's catalog ids of the messages PID 1 writes about units. */
const MESSAGE = {
  starting: '7d4958e842da4a758f6c1cdc7b36dcc5',
  started: '39f53479d3a045ac8e11786248231fbf',
  restartScheduled: '5eb03494b6584870a536b337290809b3',
} as const;

export type StartCause = 'job' | 'restart-policy' | 'timer';

export interface UnitStart {
  readonly unit: string;
  readonly invocation: string;
  /** CLOCK_REALTIME of the "Starting" (or "Started") message, in µs. */
  readonly realtimeUs: number;
  readonly cause: StartCause;
}

export type UnitProperties = Record<string, string>;

/** `systemctl show -p …` of several units: one record per unit, in the order asked. */
export async function showUnits(
  container: Container,
  units: readonly string[],
  properties: readonly string[],
): Promise<Map<string, UnitProperties>> {
  const out = await container.run([
    'systemctl',
    'show',
    '--no-pager',
    // timestamps with microseconds, in UTC; monotonic ones are printed as time spans whatever this says
    '--timestamp=us+utc',
    `--property=${['Id', ...properties].join(',')}`,
    '--',
    ...units,
  ]);
  const result = new Map<string, UnitProperties>();
  const blocks = out.split(/\n\n+/).filter((b) => b.trim() !== '');
  blocks.forEach((block, i) => {
    const record: UnitProperties = {};
    for (const line of block.split('\n')) {
      const eq = line.indexOf('=');
      if (eq > 0) record[line.slice(0, eq)] = line.slice(eq + 1);
    }
    result.set(units[i]!, record);
  });
  return result;
}

/**
 * The journal's cursor now. journalctl prints nothing while journald is between files or
 * restarting (seen once in a benchmark run), so a few tries, then the output in the error.
 */
export async function journalCursor(container: Container): Promise<string> {
  let out = '';
  for (let attempt = 0; attempt < 10; attempt++) {
    out = await container.run(['journalctl', '--no-pager', '-o', 'json', '-n', '1']);
    const last = out.trim().split('\n').at(-1) ?? '';
    try {
      const cursor = (JSON.parse(last) as { __CURSOR?: string }).__CURSOR;
      if (cursor) return cursor;
    } catch {
      // not a whole entry: asked again below
    }
    await sleep(200);
  }
  throw new Error(`journalctl printed no cursor in 10 tries: ${JSON.stringify(out.slice(0, 200))}`);
}

interface JournalEntry {
  readonly UNIT?: string;
  readonly MESSAGE_ID?: string;
  readonly INVOCATION_ID?: string;
  readonly __REALTIME_TIMESTAMP?: string;
}

/**
 * How far before a cursor the journal is read for restarts systemd had scheduled but not yet
 * started when the cursor was taken: longer than any RestartSec= of a unit on the node (15 s).
 */
const SCHEDULED_LOOKBACK_S = 60;

/** The realtime (µs since the epoch) a journal cursor points at: its `t=` field, hexadecimal. */
export function cursorRealtimeUs(cursor: string): number {
  const t = /(?:^|;)t=([0-9a-f]+)(?:;|$)/.exec(cursor);
  if (!t) throw new Error(`journal cursor without a realtime field: ${cursor}`);
  return Number.parseInt(t[1]!, 16);
}

/**
 * PID 1's messages about units since boot (`cursor` empty), or since a little before `cursor`:
 * `before` holds those up to the cursor, `after` those following it.
 */
async function managerEntries(
  container: Container,
  cursor: string,
): Promise<{ before: JournalEntry[]; after: JournalEntry[] }> {
  const at = cursor ? cursorRealtimeUs(cursor) : undefined;
  const out = await container.run([
    'journalctl',
    '--no-pager',
    '-o',
    'json',
    // __REALTIME_TIMESTAMP and __CURSOR come with every entry
    '--output-fields=UNIT,MESSAGE_ID,INVOCATION_ID',
    ...(at === undefined ? [] : [`--since=@${Math.floor(at / 1e6) - SCHEDULED_LOOKBACK_S}`]),
    '_PID=1',
  ]);
  const entries = out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as JournalEntry)
    .filter((e) => e.UNIT !== undefined);
  if (at === undefined) return { before: [], after: entries };
  const isBefore = (e: JournalEntry) => Number(e.__REALTIME_TIMESTAMP) <= at;
  return { before: entries.filter(isBefore), after: entries.filter((e) => !isBefore(e)) };
}

/** `Tue 2026-12-01 16:21:20.292676 UTC` (systemctl show --timestamp=us+utc) in µs since the epoch. */
export function parseUtcTimestamp(text: string | undefined): number {
  const m = /(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))? UTC/.exec(text ?? '');
  if (!m) return 0;
  return Date.parse(`${m[1]}T${m[2]}Z`) * 1000 + Number((m[3] ?? '').padEnd(6, '0'));
}

/** The last time each timer elapsed (µs since the epoch), for the units the timers trigger. */
async function timerTriggers(container: Container, units: readonly string[]): Promise<Map<string, number[]>> {
  const triggers = new Map<string, number[]>();
  if (units.length === 0) return triggers;
  const triggeredBy = await showUnits(container, units, ['TriggeredBy']);
  const timers = [
    ...new Set([...triggeredBy.values()].flatMap((p) => p.TriggeredBy?.split(' ') ?? [])),
  ].filter((t) => t.endsWith('.timer'));
  if (timers.length === 0) return triggers;
  const last = await showUnits(container, timers, ['LastTriggerUSec']);
  for (const [unit, p] of triggeredBy) {
    const times = (p.TriggeredBy?.split(' ') ?? [])
      .filter((t) => last.has(t))
      .map((t) => parseUtcTimestamp(last.get(t)!.LastTriggerUSec));
    triggers.set(unit, times);
  }
  return triggers;
}

/** Every unit invocation that started after `cursor`, in order, with its cause. */
export async function unitStartsSince(container: Container, cursor: string): Promise<UnitStart[]> {
  const { before, after } = await managerEntries(container, cursor);
  const seen = new Set<string>();
  // A restart systemd scheduled just before the cursor, whose start comes after it, is still its
  // restart policy's: the two messages can fall on either side of a cursor taken between them.
  const scheduled = new Set<string>();
  // An invocation that was starting when the cursor was taken started before it.
  for (const e of before) {
    if (e.MESSAGE_ID === MESSAGE.restartScheduled) scheduled.add(e.UNIT!);
    else if (e.MESSAGE_ID === MESSAGE.starting || e.MESSAGE_ID === MESSAGE.started) {
      scheduled.delete(e.UNIT!);
      if (e.INVOCATION_ID) seen.add(e.INVOCATION_ID);
    }
  }
  const starts: Omit<UnitStart, 'cause'>[] = [];
  const auto = new Set<string>();
  for (const e of after) {
    const unit = e.UNIT!;
    if (e.MESSAGE_ID === MESSAGE.restartScheduled) scheduled.add(unit);
    const starting = e.MESSAGE_ID === MESSAGE.starting || e.MESSAGE_ID === MESSAGE.started;
    if (!starting || !e.INVOCATION_ID || seen.has(e.INVOCATION_ID)) continue;
    seen.add(e.INVOCATION_ID);
    if (scheduled.delete(unit)) auto.add(e.INVOCATION_ID);
    starts.push({
      unit,
      invocation: e.INVOCATION_ID,
      realtimeUs: Number(e.__REALTIME_TIMESTAMP),
    });
  }
  const triggers = await timerTriggers(container, [...new Set(starts.map((s) => s.unit))]);
  return starts.map((s) => {
    const timerElapsed = (triggers.get(s.unit) ?? []).some(
      (t) => t > 0 && s.realtimeUs >= t && s.realtimeUs - t < 2_000_000,
    );
    const cause: StartCause = auto.has(s.invocation) ? 'restart-policy' : timerElapsed ? 'timer' : 'job';
    return { ...s, cause };
  });
}

/** The starts caused by jobs, counted per unit. */
export function jobStartsPerUnit(starts: readonly UnitStart[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of starts) if (s.cause === 'job') counts.set(s.unit, (counts.get(s.unit) ?? 0) + 1);
  return counts;
}
