import { EventEmitter } from 'node:events';
import { type FSWatcher, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { DriftWatcher } from '../../../../node-agent/controllers/drift/drift-watcher.js';
import { useTempDirs } from '../../support/harness.js';

describe('node-agent drift watcher: inotify, and the fallback when it fails', () => {
  const tempDir = useTempDirs();
  let root: string;

  beforeEach(() => {
    root = tempDir('gna-drift-watch-');
    mkdirSync(join(root, 'etc/sysctl.d'), { recursive: true });
    mkdirSync(join(root, 'etc/systemd/system/kubelet.service.d'), { recursive: true });
  });

  const waitFor = async (done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('one report per burst of changes to managed names; other names and missing directories do not count', async () => {
    const seen: number[] = [];
    const w = new DriftWatcher({
      root,
      onChange: (at) => seen.push(at),
      onFallback: () => {},
      debounceMs: 50,
    });
    w.update(['/etc/sysctl.d/99-k8s.conf', '/etc/systemd/system/kubelet.service.d/10-a.conf', '/opt/none/x']);
    expect(w.watchedDirectories).to.equal(2);
    writeFileSync(join(root, 'etc/sysctl.d/other.conf'), 'x');
    await new Promise((r) => setTimeout(r, 150));
    expect(seen).to.deep.equal([]);
    writeFileSync(join(root, 'etc/sysctl.d/99-k8s.conf'), 'a');
    writeFileSync(join(root, 'etc/sysctl.d/99-k8s.conf'), 'b');
    await waitFor(() => seen.length > 0);
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).to.have.length(1);
    // a new drop-in in a managed unit's directory counts
    writeFileSync(join(root, 'etc/systemd/system/kubelet.service.d/99-mine.conf'), 'x');
    await waitFor(() => seen.length > 1);
    expect(seen).to.have.length(2);
    w.close();
  });

  it('ENOSPC (max_user_watches): stops watching at all and says so once', () => {
    const reasons: string[] = [];
    const w = new DriftWatcher({
      root,
      onChange: () => {},
      onFallback: (reason) => reasons.push(reason),
      watch: (() => {
        throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
      }) as never,
    });
    w.update(['/etc/sysctl.d/99-k8s.conf', '/etc/systemd/system/kubelet.service.d/10-a.conf']);
    expect(w.degraded).to.equal(true);
    expect(w.watchedDirectories).to.equal(0);
    expect(reasons).to.deep.equal(['cannot watch /etc/sysctl.d (ENOSPC)']);
    w.update(['/etc/sysctl.d/99-k8s.conf']);
    expect(reasons).to.have.length(1);
  });

  it('a watch that fails later (a queue overflow) closes every watch and falls back', () => {
    const reasons: string[] = [];
    const watchers: (EventEmitter & { closed?: boolean })[] = [];
    const w = new DriftWatcher({
      root,
      onChange: () => {},
      onFallback: (reason) => reasons.push(reason),
      watch: (() => {
        const e = Object.assign(new EventEmitter(), { close: () => Object.assign(e, { closed: true }) });
        watchers.push(e);
        return e as unknown as FSWatcher;
      }) as never,
    });
    w.update(['/etc/sysctl.d/99-k8s.conf', '/etc/systemd/system/kubelet.service.d/10-a.conf']);
    watchers[0]?.emit('error', Object.assign(new Error('overflow'), { code: 'EOVERFLOW' }));
    expect(reasons).to.deep.equal(['watch of /etc/sysctl.d failed (EOVERFLOW)']);
    expect(watchers.every((x) => x.closed)).to.equal(true);
    expect(w.degraded).to.equal(true);
  });
});
