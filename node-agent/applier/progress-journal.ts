/**
 * The journal of the apply in flight, `/var/lib/gardener-node-agent/apply-progress.journal`
 * (0600), beside `apply-progress.yaml` (progress-file.ts), which holds the plan and is written
 * once per apply. What happens to each step is appended here as one JSON line, so checking a step
 * off costs one short append whatever the size of the plan (rewriting the whole plan after every
 * step made an apply of N files O(N²): 1,000 files took minutes, docs/reliability.md):
 *
 *   {"oscChecksum":"<sha256 hex>"}                         the first line: which progress file it belongs to
 *   {"intent":{"step":"restart a.service","unit":"a.service","before":{…}}}   before a restart or stop
 *   {"clear":"restart a.service"}                          that call failed (rather than being cut off)
 *   {"done":"write-file /etc/a"}                           the step is checked off
 *
 * Every append is written with one write(2) and fdatasync'ed before the apply goes on, as the
 * rewritten file was. A crash can only cut off the last line: reading stops at the first line that
 * is not complete JSON, and an apply that resumes cuts the file back to what it read before it
 * appends. A journal whose first line names another checksum (an apply of another OSC that died
 * before its journal was started) is ignored and replaced.
 *
 * An intent stays in force until its step is checked off or cleared, across any number of crashes:
 * a resumed apply that is killed again before it reaches the interrupted command still finds the
 * intent (the rewritten file kept only the latest one, and the first rewrite of a resumed apply
 * dropped it).
 */
import { constants, type FileHandle, open, rm, truncate } from 'node:fs/promises';
import { PATH } from '../../api/index.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { HostRoot } from './host-root.js';
import { readTextIfExists } from './last-applied.js';
import type { InFlightCommand } from './progress-file.js';

export const PROGRESS_JOURNAL = `${PATH.nodeAgentBaseDir}/apply-progress.journal`;

type Entry = { oscChecksum: string } | { intent: InFlightCommand } | { clear: string } | { done: string };

/** What a journal says: the steps checked off and the intents still in force, by step. */
export interface JournalState {
  readonly completed: readonly string[];
  readonly inFlight: readonly InFlightCommand[];
  /** Bytes of the lines read whole (what a resumed apply keeps). */
  readonly validBytes: number;
}

const EMPTY: JournalState = { completed: [], inFlight: [], validBytes: 0 };

function parseEntry(line: string): Entry | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) return undefined;
    const v = value as Record<string, unknown>;
    if (typeof v.oscChecksum === 'string') return { oscChecksum: v.oscChecksum };
    if (typeof v.done === 'string') return { done: v.done };
    if (typeof v.clear === 'string') return { clear: v.clear };
    const intent = v.intent as InFlightCommand | undefined;
    if (intent && typeof intent.step === 'string' && typeof intent.unit === 'string' && intent.before)
      return { intent };
    return undefined;
  } catch {
    return undefined;
  }
}

/** Reads the journal text of the progress file with `oscChecksum`; another checksum's is empty. */
export function decodeJournal(text: string, oscChecksum: string): JournalState {
  const completed: string[] = [];
  const intents = new Map<string, InFlightCommand>();
  let offset = 0;
  let first = true;
  while (offset < text.length) {
    const end = text.indexOf('\n', offset);
    if (end < 0) break; // a line cut off by a crash
    const entry = parseEntry(text.slice(offset, end));
    if (!entry) break;
    if (first) {
      if (!('oscChecksum' in entry) || entry.oscChecksum !== oscChecksum) return EMPTY;
      first = false;
    } else if ('done' in entry) {
      completed.push(entry.done);
      intents.delete(entry.done);
    } else if ('clear' in entry) intents.delete(entry.clear);
    else if ('intent' in entry) intents.set(entry.intent.step, entry.intent);
    offset = end + 1;
  }
  if (first) return EMPTY;
  return { completed, inFlight: [...intents.values()], validBytes: Buffer.byteLength(text.slice(0, offset)) };
}

export async function readJournal(host: HostRoot, oscChecksum: string): Promise<JournalState> {
  const text = await readTextIfExists(host.path(PROGRESS_JOURNAL));
  return text === undefined ? EMPTY : decodeJournal(text, oscChecksum);
}

export async function removeJournal(host: HostRoot): Promise<void> {
  await rm(host.path(PROGRESS_JOURNAL), { force: true });
}

/** The journal of one apply, open for appending. */
export class ProgressJournal {
  private constructor(private readonly handle: FileHandle) {}

  /**
   * Opens the journal of the progress file with `oscChecksum`: continued where `state` (read
   * before) ends when there is one, else started afresh with its first line.
   */
  static async open(host: HostRoot, oscChecksum: string, state: JournalState): Promise<ProgressJournal> {
    const path = host.path(PROGRESS_JOURNAL);
    await host.prepareParent(path);
    if (state.validBytes > 0) await truncate(path, state.validBytes);
    else await writeFileAtomic(path, `${JSON.stringify({ oscChecksum })}\n`, 0o600);
    const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW;
    return new ProgressJournal(await open(path, flags));
  }

  private async append(entry: Entry): Promise<void> {
    await this.handle.write(`${JSON.stringify(entry)}\n`);
    await this.handle.datasync();
  }

  done(step: string): Promise<void> {
    return this.append({ done: step });
  }

  intent(intent: InFlightCommand): Promise<void> {
    return this.append({ intent });
  }

  clear(step: string): Promise<void> {
    return this.append({ clear: step });
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}
