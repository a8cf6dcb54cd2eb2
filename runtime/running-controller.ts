/**
 * What starting a controller returns, on the seed and on the node alike: its reconcile loop (for
 * its queue), when its caches are filled (readiness) and when it has stopped (shutdown).
 */
import type { Controller } from './controller.js';

export interface RunningController<K extends string = string> {
  readonly name: string;
  /** The reconcile loop; its queue takes keys from outside (a resync, say). */
  readonly controller: Controller<K>;
  /** Resolves once its caches are filled and its workers run (for readiness). */
  synced(): Promise<void>;
  /** Resolves once its watches, workers and clean-up are done after its signal aborted. */
  stopped(): Promise<void>;
}
