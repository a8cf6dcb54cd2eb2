/**
 * What the agent's figures are read against: the bundle's composition, idle processes that load
 * only (parts of) the agent's dependencies, a small atomic write on this disk, and the agent's own
 * heap from its /metrics.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { writeFileAtomic } from '../../../node-agent/fs/atomic-write.js';
import { ENTRY, OPTIONAL_NATIVE_MODULES } from '../../build-node-agent.js';
import { ROOT } from '../support/revision.js';
import { now } from '../support/run.js';

/** Bytes of the agent bundle per package (node_modules package, or the project folder). */
export async function bundleComposition(): Promise<{ total: number; parts: [string, number][] }> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: OPTIONAL_NATIVE_MODULES,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const parts = new Map<string, number>();
  let total = 0;
  for (const output of Object.values(result.metafile.outputs)) {
    total += output.bytes;
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
      const part = m ? m[1]! : `${input.split('/')[0]}/ (project)`;
      parts.set(part, (parts.get(part) ?? 0) + bytesInOutput);
    }
  }
  return { total, parts: [...parts].sort((a, b) => b[1] - a[1]) };
}

/** Bundles `source` (TypeScript, resolved from the project) like the agent into `outfile`. */
export async function bundleProbe(outfile: string, source: string): Promise<string> {
  const esbuild = await import('esbuild');
  await esbuild.build({
    stdin: { contents: source, resolveDir: ROOT, loader: 'ts', sourcefile: 'probe.ts' },
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: OPTIONAL_NATIVE_MODULES,
    logLevel: 'silent',
  });
  return outfile;
}

export const IDLE = 'setInterval(() => {}, 1 << 30);';
/** The parts of @kubernetes/client-node the agent imports, with the clients it makes. */
export const CLIENT_NODE_PROBE = `
import { ApiException, CoordinationV1Api, CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, V1MicroTime } from '@kubernetes/client-node';
const kc = new KubeConfig();
kc.loadFromOptions({
  clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: false }],
  users: [{ name: 'u', token: 't' }],
  contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
  currentContext: 'x',
});
(globalThis as Record<string, unknown>).keep = [kc.makeApiClient(CoreV1Api), kc.makeApiClient(CoordinationV1Api), ApiException, PatchStrategy, setHeaderOptions, V1MicroTime];
${IDLE}`;
/** The agent's other runtime dependencies. */
export const OTHER_DEPS_PROBE = `
import * as b from 'pino'; import * as c from 'zod'; import * as d from 'yaml';
import * as e from 'prom-client'; import * as f from 'commander';
(globalThis as Record<string, unknown>).keep = [b, c, d, e, f];
${IDLE}`;

/** A small atomic write (temp file, fsync, rename, directory fsync) as the agent does it, in `dir`. */
export async function atomicWrites(dir: string, count: number): Promise<number[]> {
  const file = join(dir, 'fsync-calibration');
  const times: number[] = [];
  for (let i = 0; i < count + 5; i++) {
    const t = now();
    await writeFileAtomic(file, `calibration ${i}\n${'x'.repeat(1024)}`, 0o600);
    if (i >= 5) times.push(now() - t);
  }
  rmSync(file, { force: true });
  return times;
}

/** The agent's own Node.js memory metrics (prom-client's default metrics on its /metrics). */
export async function agentHeap(url: string | undefined): Promise<Record<string, number> | undefined> {
  if (!url) return undefined;
  try {
    const res = await request(`${url}/metrics`);
    const text = await res.body.text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN);
    return {
      heapUsed: value('nodejs_heap_size_used_bytes'),
      heapTotal: value('nodejs_heap_size_total_bytes'),
      external: value('nodejs_external_memory_bytes'),
      rss: value('process_resident_memory_bytes'),
    };
  } catch {
    return undefined;
  }
}
