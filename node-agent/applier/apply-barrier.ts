/**
 * Barriers at the applier's crash points (`persisted`, `before <step>`, `intent <step>`, `done
 * <step>`, `checked-off <step>`, `last-applied`), for tests that kill the agent under a real
 * systemd. With `GARDENER_NODE_AGENT_APPLY_BARRIERS=DIR` in its environment the agent stops at a
 * point whose file `DIR/<point>` exists (spaces and slashes of the point as `-`), says so by
 * writing `DIR/<point>.reached` with its pid, and goes on once the file is gone. A test then kills
 * it exactly there, however slowly the machine runs, instead of polling for a window the agent may
 * already have left. Without the variable nothing is looked at.
 */
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathExists } from './host-root.js';

export const APPLY_BARRIERS_ENV = 'GARDENER_NODE_AGENT_APPLY_BARRIERS';

/** Resolves when the apply may go on past `point`; rejects when `signal` aborts the wait. */
export type ApplyBarrier = (point: string, signal?: AbortSignal) => Promise<void>;

/** The file name of a point: `before restart valitail.service` → `before-restart-valitail.service`. */
export function barrierFileName(point: string): string {
  return point.replace(/[^A-Za-z0-9._-]+/g, '-');
}

/** Holds at every point armed by a file in `dir`, looking every `pollMs` whether it was released. */
export function fileBarrier(dir: string, pollMs = 50): ApplyBarrier {
  return async (point, signal) => {
    const armed = join(dir, barrierFileName(point));
    if (!(await pathExists(armed))) return;
    // by rename: a test that sees the file reads the whole pid, never an empty file being written
    await writeFile(`${armed}.reached.tmp`, `${process.pid}\n`);
    await rename(`${armed}.reached.tmp`, `${armed}.reached`);
    while (await pathExists(armed)) {
      try {
        await sleep(pollMs, undefined, { signal });
      } catch (e) {
        signal?.throwIfAborted(); // with the reason the apply was stopped for, not a bare AbortError
        throw e;
      }
    }
  };
}

/** The barrier the environment asks for, or undefined (the agent in production). */
export function applyBarrierFromEnv(env: NodeJS.ProcessEnv): ApplyBarrier | undefined {
  const dir = env[APPLY_BARRIERS_ENV];
  return dir ? fileBarrier(dir) : undefined;
}
