/**
 * inotify (fs.watch) on the directories of what the agent manages, so an edit is noticed within a
 * debounce time instead of at the next periodic check. Only names the agent manages in a directory
 * trigger. A directory that does not exist yet is not watched (the periodic check covers it, and
 * the next check watches it once an apply created it). When the kernel refuses more watches
 * (ENOSPC: fs.inotify.max_user_watches; EMFILE: max_user_instances) or a watch fails later (an
 * event queue overflow ends Node's watcher with an error), the watcher stops watching at all and
 * says so once: the periodic full check is then the only detection, and its interval the bound
 * (docs/reliability.md#drift).
 */
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { PATH } from '../../../api/index.js';

/** `/etc/systemd/system/<unit>.d`: any `*.conf` there changes the unit (an extra drop-in is drift). */
function isDropInDirectory(dir: string): boolean {
  return dirname(dir) === PATH.systemdUnitDir && dir.endsWith('.d');
}

export interface DriftWatcherOptions {
  readonly root: string;
  /** Called once per burst of changes, with when the first change of the burst was seen. */
  readonly onChange: (firstSeenAt: number) => void;
  readonly onFallback: (reason: string) => void;
  readonly debounceMs?: number;
  readonly now?: () => number;
  /** node:fs `watch`, replaced in tests to simulate an exhausted or overflowing inotify. */
  readonly watch?: typeof watch;
}

export class DriftWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private names = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | undefined;
  private firstSeen: number | undefined;
  private fallenBack = false;

  constructor(private readonly o: DriftWatcherOptions) {}

  /** Watching is off for good: the periodic check alone detects. */
  get degraded(): boolean {
    return this.fallenBack;
  }

  get watchedDirectories(): number {
    return this.watchers.size;
  }

  /** Watches exactly the directories of these host paths (call again when the managed paths change). */
  update(hostPaths: readonly string[]): void {
    if (this.fallenBack) return;
    const names = new Map<string, Set<string>>();
    for (const path of hostPaths) {
      const dir = dirname(path);
      const set = names.get(dir) ?? new Set<string>();
      set.add(basename(path));
      names.set(dir, set);
    }
    this.names = names;
    for (const [dir, w] of this.watchers)
      if (!names.has(dir)) {
        w.close();
        this.watchers.delete(dir);
      }
    for (const dir of names.keys()) if (!this.watchers.has(dir)) this.watchDirectory(dir);
  }

  private watchDirectory(dir: string): void {
    let w: FSWatcher;
    try {
      w = (this.o.watch ?? watch)(join(this.o.root, dir), { persistent: false }, (_event, name) =>
        this.changed(dir, name),
      );
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      this.fallBack(`cannot watch ${dir} (${code ?? (e as Error).message})`);
      return;
    }
    w.on('error', (e: NodeJS.ErrnoException) =>
      this.fallBack(`watch of ${dir} failed (${e.code ?? e.message})`),
    );
    this.watchers.set(dir, w);
  }

  private changed(dir: string, name: string | Buffer | null): void {
    const file = name === null ? undefined : String(name);
    const managed = this.names.get(dir);
    // names nobody manages here (an editor's swap file, other software) do not count; a new
    // drop-in in a unit's directory does
    const counts =
      file === undefined || managed?.has(file) || (isDropInDirectory(dir) && file.endsWith('.conf'));
    if (!counts) return;
    const now = (this.o.now ?? Date.now)();
    this.firstSeen ??= now;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const first = this.firstSeen ?? now;
      this.firstSeen = undefined;
      this.o.onChange(first);
    }, this.o.debounceMs ?? 100);
    this.timer.unref();
  }

  private fallBack(reason: string): void {
    if (this.fallenBack) return;
    this.fallenBack = true;
    this.close();
    this.o.onFallback(reason);
  }

  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
