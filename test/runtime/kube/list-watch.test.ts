/**
 * The watch stream decoder and the heartbeat of ListWatch against a plain HTTP peer that writes
 * exactly the bytes the test chooses: multi-byte characters cut at every byte offset, and a stream
 * that goes silent behind a proxy that freezes connections without resetting them.
 */
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { eventually, sleep } from '../../../hack/landscape/eventually.js';
import { FreezingProxy } from '../../../hack/landscape/freezing-proxy.js';
import { LineSplitter } from '../../../runtime/kube/json-lines.js';
import { KubeHttp } from '../../../runtime/kube/kube-http.js';
import { type KubeObject, ListWatch } from '../../../runtime/kube/list-watch.js';
import { RestConfig } from '../../../runtime/kube/rest-config.js';
import { WatchHealth } from '../../../runtime/kube/watch-health.js';
import { createLogger } from '../../../runtime/logging.js';
import { bookmarkLine, eventLine, WatchPeer } from '../../support/watch-peer.js';

interface Obj extends KubeObject {
  data: { text: string };
}

const object = (name: string, rv: string, text: string): Obj => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'ns', resourceVersion: rv },
  data: { text },
});

/** 2-, 3- and 4-byte characters, so every kind of cut happens somewhere. */
const TEXTS = ['grüße ü', 'käse € 価格', 'clef 𝄞 ünd ß'];
const STREAM = Buffer.from(
  TEXTS.map((t, i) => eventLine('MODIFIED', object(`o${i}`, `${i + 10}`, t))).join(''),
);

function logCapture() {
  const lines: { level: string; msg: string }[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _e, done) {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { log: createLogger({ level: 'debug', destination }), lines };
}

describe('runtime/kube LineSplitter', () => {
  it('decodes lines whole wherever the chunks cut a character', () => {
    const expected = STREAM.toString('utf8').split('\n').filter(Boolean);
    for (let a = 1; a < STREAM.length; a++) {
      for (const b of [a + 1, a + 2, a + 3]) {
        const splitter = new LineSplitter();
        const lines = [
          ...splitter.push(STREAM.subarray(0, a)),
          ...splitter.push(STREAM.subarray(a, b)),
          ...splitter.push(STREAM.subarray(b)),
        ];
        expect(lines, `cut at ${a} and ${b}`).to.deep.equal(expected);
        expect(splitter.end()).to.equal(undefined);
      }
    }
  });

  it('returns a last line without newline at the end', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(Buffer.from('a\nü'.slice(0, 3)))).to.deep.equal(['a']);
    expect(splitter.end()).to.equal('ü');
  });
});

describe('runtime/kube ListWatch against a watch peer', function () {
  this.timeout(60_000);
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it('decodes multi-byte UTF-8 cut at every byte offset of the stream', async () => {
    let offset = 1;
    const peer = await WatchPeer.start({
      list: () => ({ resourceVersion: '1', items: [] }),
      watch: async (res) => {
        if (offset >= STREAM.length) return; // stays open until the test ends
        const cut = offset++;
        res.write(STREAM.subarray(0, cut));
        await sleep(2);
        res.end(STREAM.subarray(cut));
      },
    });
    cleanup.push(() => peer.close());
    const http = new KubeHttp(new RestConfig({ server: peer.url }));
    cleanup.push(() => http.close());
    const seen: string[] = [];
    const lw = new ListWatch<Obj>(
      { http, path: '/api/v1/secrets', backoff: { baseMs: 1, maxMs: 1 } },
      { onList: () => undefined, onEvent: (_t, o) => seen.push(o.data.text) },
    );
    const stop = new AbortController();
    const running = lw.run(stop.signal);
    cleanup.push(async () => {
      stop.abort();
      await running;
    });
    await eventually(
      'every offset served',
      () => seen.length >= (STREAM.length - 1) * TEXTS.length,
      50_000,
      20,
    );
    const wrong = seen.filter((text, i) => text !== TEXTS[i % TEXTS.length]);
    expect(wrong, 'texts decoded differently than sent').to.deep.equal([]);
  });

  it('re-opens a watch whose connection froze, is stale meanwhile and warns once per incident', async () => {
    let generation = 0;
    let writeAfterThaw: ((line: string) => void) | undefined;
    const peer = await WatchPeer.start({
      list: () => ({ resourceVersion: '1', items: [object('a', '1', 'start')] }),
      watch: async (res) => {
        const mine = ++generation;
        writeAfterThaw = (line) => res.write(line);
        // bookmarks every 100 ms: the heartbeat of an idle watch
        while (!res.destroyed && generation === mine) {
          res.write(bookmarkLine(String(mine)));
          await sleep(100);
        }
      },
    });
    cleanup.push(() => peer.close());
    const proxy = await FreezingProxy.start({ host: '127.0.0.1', port: peer.port });
    cleanup.push(() => proxy.close());
    const http = new KubeHttp(new RestConfig({ server: `http://${proxy.url}` }));
    cleanup.push(() => http.close());
    const { log, lines } = logCapture();
    const health = new WatchHealth();
    const events: string[] = [];
    const lw = new ListWatch<Obj>(
      {
        http,
        path: '/api/v1/secrets',
        heartbeatTimeoutMs: 600,
        log,
        health,
        backoff: { baseMs: 100, maxMs: 200 },
      },
      { onList: () => undefined, onEvent: (_t, o) => events.push(o.data.text) },
    );
    const stop = new AbortController();
    const running = lw.run(stop.signal);
    cleanup.push(async () => {
      stop.abort();
      await running;
    });

    await eventually('watching', () => lw.state === 'watching');
    await sleep(2_000);
    expect(lw.watchesOpened, 'bookmarks keep a quiet watch alive').to.equal(1);
    expect(() => health.check.check()).not.to.throw();

    const frozenAt = Date.now();
    proxy.freeze();
    proxy.blackhole(true);
    await eventually('stale', () => lw.staleSince !== undefined, 5_000, 20);
    const detectedAfter = Date.now() - frozenAt;
    expect(detectedAfter, 'detected after the heartbeat timeout').to.be.within(500, 2_000);
    expect(() => health.check.check()).to.throw(/stale: \/api\/v1\/secrets/);
    await sleep(2_000); // several failed re-opens through the black hole
    const warnings = () => lines.filter((l) => l.level === 'warn');
    expect(warnings().map((w) => w.msg)).to.have.length(1);
    expect(warnings()[0]!.msg).to.match(/Watch is stale \(no event or bookmark for 0.6s\)/);

    proxy.blackhole(false);
    await eventually('re-established', () => lw.staleSince === undefined, 5_000, 20);
    expect(() => health.check.check()).not.to.throw();
    expect(lines.some((l) => l.msg === 'Watch re-established')).to.equal(true);
    writeAfterThaw?.(eventLine('MODIFIED', object('a', '99', 'after the outage')));
    await eventually('the event after the outage', () => events.includes('after the outage'), 5_000, 20);
    expect(warnings()).to.have.length(1);
  });

  it('re-opens a silent watch of a server without bookmarks quietly', async () => {
    const peer = await WatchPeer.start({
      list: () => ({ resourceVersion: '1', items: [] }),
      watch: () => undefined, // headers, then nothing: a quiet stream
    });
    cleanup.push(() => peer.close());
    const http = new KubeHttp(new RestConfig({ server: peer.url }));
    cleanup.push(() => http.close());
    const { log, lines } = logCapture();
    const health = new WatchHealth();
    const lw = new ListWatch<Obj>(
      { http, path: '/api/v1/secrets', heartbeatTimeoutMs: 300, log, health },
      { onList: () => undefined, onEvent: () => undefined },
    );
    const stop = new AbortController();
    const running = lw.run(stop.signal);
    cleanup.push(async () => {
      stop.abort();
      await running;
    });
    await eventually('re-opened', () => lw.watchesOpened >= 3, 5_000, 20);
    expect(lines.filter((l) => l.level === 'warn')).to.deep.equal([]);
    expect(health.staleWatches()).to.deep.equal([]);
  });
});
