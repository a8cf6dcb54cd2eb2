/**
 * The set of access-token target secrets one shoot's token-labels controller watches: derived from
 * the seed's shoot-access secrets of the shoot namespace (decide.ts), each target watched alone in
 * the shoot while it is one (its own informer, from `watchTarget`). A target that stops being one
 * is no longer watched; a problem with a shoot-access secret is reported once while it lasts.
 */
import type { KubeObject } from '../../runtime/kube/list-watch.js';
import type { Logger } from '../../runtime/logging.js';
import { type SecretObject, type TargetSecret, targetsFromShootAccessSecrets } from './decide.js';

/** A target's own watch: its informer, and how to end the watch. */
export interface TargetWatch {
  readonly informer: {
    get(name: string, namespace?: string): SecretObject | undefined;
    waitForSync(signal?: AbortSignal): Promise<void>;
  };
  /** Ends the watch (unsubscribes, gives the informer back). */
  stop(): void;
}

export interface TargetWatchesOptions {
  /** The shoot namespace in the seed: only its shoot-access secrets count. */
  readonly namespace: string;
  /** The seed's shoot-access secrets (every namespace). */
  readonly seedSecrets: { list(): KubeObject[] };
  /** Starts watching one target; its changes enqueue `key`. */
  watchTarget(target: TargetSecret, key: string): TargetWatch;
  /** Called once for each new problem with a shoot-access secret. */
  onProblem(problem: string): void;
  /** Called with the number of targets after each change of the set. */
  onCount?(count: number): void;
  readonly log: Logger;
}

export class TargetWatches {
  private readonly watched = new Map<string, { target: TargetSecret; watch: TargetWatch }>();
  private readonly reportedProblems = new Set<string>();
  private stopped = false;

  constructor(private readonly o: TargetWatchesOptions) {}

  /** Derives the targets again from the seed's secrets, and starts and ends watches to match. */
  update(): void {
    if (this.stopped) return;
    const ours = this.o.seedSecrets.list().filter((s) => s.metadata?.namespace === this.o.namespace);
    const { targets, problems } = targetsFromShootAccessSecrets(ours);
    for (const problem of problems) {
      if (this.reportedProblems.has(problem)) continue;
      this.reportedProblems.add(problem);
      this.o.onProblem(problem);
    }
    for (const known of this.reportedProblems)
      if (!problems.includes(known)) this.reportedProblems.delete(known);
    for (const [key, w] of this.watched) {
      if (targets.has(key)) continue;
      this.watched.delete(key);
      w.watch.stop();
      this.o.log.info({ secret: key }, 'Stopped watching a secret that is no longer an access-token target');
    }
    for (const [key, target] of targets) {
      if (this.watched.has(key)) continue;
      this.watched.set(key, { target, watch: this.o.watchTarget(target, key) });
      this.o.log.info({ secret: key }, 'Watching access-token target');
    }
    this.o.onCount?.(this.watched.size);
  }

  /** Whether a seed secret's change can change this shoot's targets. */
  concerns(secret: KubeObject): boolean {
    return secret.metadata?.namespace === this.o.namespace;
  }

  target(key: string): TargetSecret | undefined {
    return this.watched.get(key)?.target;
  }

  /** The target secret as its watch caches it. */
  secret(key: string): SecretObject | undefined {
    const w = this.watched.get(key);
    return w?.watch.informer.get(w.target.name, w.target.namespace);
  }

  /** The targets watched now, by `namespace/name`. */
  targets(): ReadonlyMap<string, TargetSecret> {
    return new Map([...this.watched].map(([key, w]) => [key, w.target]));
  }

  /** Resolves once every target watched now is listed. */
  async synced(signal: AbortSignal): Promise<void> {
    await Promise.all([...this.watched.values()].map((w) => w.watch.informer.waitForSync(signal)));
  }

  /** Ends every watch; later updates do nothing. */
  stop(): void {
    this.stopped = true;
    for (const w of this.watched.values()) w.watch.stop();
  }
}
