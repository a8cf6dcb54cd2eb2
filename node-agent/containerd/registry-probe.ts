/**
 * Readiness probes of registries (gardener v1.150.0 containerd.go `addRegistryToContainerdFunc`): a
 * registry with `readinessProbe` that is new or changed gets its hosts.toml only once every one of
 * its hosts answered a GET (any status: only reaching it counts), each request with a 1 s
 * timeout, the round repeated every 2 s; a host's `caCerts` (relative ones under the registry's
 * directory) are the CAs trusted for it. Upstream probes in the background while the apply goes
 * on and waits for it after the unit commands, without a bound but the reconcile's; ours does the
 * same with a deadline (5 min by default), after which the apply fails naming the registry and
 * the next attempt probes again (docs/compatibility.md V150-23).
 */
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { HostPaths } from './host-paths.js';
import { registryDir } from './registry-hosts.js';

/** One GET of a host: resolves once it answered, rejects when it cannot be reached in time. */
export type ProbeHost = (url: string, ca: readonly string[] | undefined, timeoutMs: number) => Promise<void>;

export interface RegistryProbeOptions {
  readonly requestTimeoutMs?: number;
  readonly intervalMs?: number;
  /** How long a registry may stay unreachable before the apply fails. */
  readonly deadlineMs?: number;
  readonly probeHost?: ProbeHost;
  readonly signal?: AbortSignal;
}

export const REGISTRY_PROBE_DEFAULTS = { requestTimeoutMs: 1_000, intervalMs: 2_000, deadlineMs: 300_000 };

export const httpProbeHost: ProbeHost = (url, ca, timeoutMs) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(
      target,
      { method: 'GET', timeout: timeoutMs, ...(ca ? { ca: [...ca] } : {}) },
      (res) => {
        res.resume();
        resolve();
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });

interface ProbedRegistry {
  readonly upstream: string;
  readonly hosts?: readonly { readonly url: string; readonly caCerts?: readonly string[] }[];
}

async function caOf(host: HostPaths, upstream: string, caCerts: readonly string[] | undefined) {
  if (!caCerts?.length) return undefined;
  return Promise.all(
    caCerts.map((ca) =>
      readFile(host.path(ca.startsWith('/') ? ca : `${registryDir(upstream)}/${ca}`), 'utf8'),
    ),
  );
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** Resolves once every host of the registry answered in one round; rejects at the deadline. */
export async function probeRegistry(
  host: HostPaths,
  registry: ProbedRegistry,
  options: RegistryProbeOptions = {},
): Promise<void> {
  const o = { ...REGISTRY_PROBE_DEFAULTS, ...options };
  const probeHost = options.probeHost ?? httpProbeHost;
  const deadline = Date.now() + o.deadlineMs;
  for (;;) {
    options.signal?.throwIfAborted();
    let failure: string | undefined;
    try {
      for (const h of registry.hosts ?? [])
        await probeHost(h.url, await caOf(host, registry.upstream, h.caCerts), o.requestTimeoutMs).catch(
          (e: unknown) => {
            throw new Error(
              `failed to reach registry ${h.url} for upstream ${registry.upstream}: ${(e as Error).message}`,
            );
          },
        );
      return;
    } catch (e) {
      failure = (e as Error).message;
    }
    if (Date.now() + o.intervalMs > deadline)
      throw new Error(`registry ${registry.upstream} not ready within ${o.deadlineMs} ms: ${failure}`);
    await sleep(o.intervalMs, options.signal);
  }
}
