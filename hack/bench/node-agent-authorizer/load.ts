/**
 * The load generator of the authorizer benchmark, a process of its own (as the kube-apiserver is):
 * open-loop at a fixed rate, each request sent at its scheduled time whether or not earlier ones
 * were answered, over a few kept-alive TLS connections; a request's latency counts from its
 * scheduled time when it went out late (so a stalled server cannot hide behind a slowed client),
 * from its sending when it went out early (timers are not finer than a millisecond). Prints the latencies
 * (milliseconds) as one JSON line.
 * `node --import tsx load.ts <url> <ca file> <reviews file> <rate/s> <seconds>`
 */
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

const [url, caFile, reviewsFile, rateText, secondsText] = process.argv.slice(2);
if (!url || !caFile || !reviewsFile || !rateText || !secondsText) {
  process.stderr.write('usage: load.ts <url> <ca file> <reviews file> <rate/s> <seconds>\n');
  process.exit(2);
}
const reviews = (JSON.parse(readFileSync(reviewsFile, 'utf8')) as unknown[]).map((r) => JSON.stringify(r));
const rate = Number(rateText);
const total = Math.round(rate * Number(secondsText));
const target = new URL(url);
const pool = new Pool(target.origin, { connections: 8, connect: { ca: readFileSync(caFile) } });
const now = () => performance.timeOrigin + performance.now();
// the shoot's bearer token, as its kube-apiserver sends it (AUTHORIZER_TOKEN)
const token = process.env.AUTHORIZER_TOKEN;
const authorization: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};

const latencies: number[] = [];
let failures = 0;
const inFlight: Promise<void>[] = [];
const start = now() + 200;
for (let i = 0; i < total; i++) {
  const scheduled = start + (i * 1000) / rate;
  const wait = scheduled - now();
  if (wait > 1) await new Promise((r) => setTimeout(r, wait));
  const sent = now();
  const from = Math.min(sent, scheduled);
  inFlight.push(
    pool
      .request({
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authorization },
        body: reviews[i % reviews.length],
      })
      .then(async (res) => {
        await res.body.text();
        if (res.statusCode !== 200) failures++;
        latencies.push(now() - from);
      })
      .catch(() => {
        failures++;
      }),
  );
}
await Promise.all(inFlight);
await pool.close();
process.stdout.write(`${JSON.stringify({ latencies, failures })}\n`);
