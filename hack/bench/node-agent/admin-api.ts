/**
 * The API server as the bench's admin sees it (undici, keep-alive), and the calibrations of a
 * plain GET: ours, and client-node's (which opens a TLS connection per request).
 */
import tls from 'node:tls';
import { CoreV1Api } from '@kubernetes/client-node';
import { Agent, request } from 'undici';
import type { Envtest } from '../../landscape/envtest.js';
import { now } from '../support/run.js';

export class AdminApi {
  private readonly dispatcher: Agent;
  private readonly token: string;
  readonly server: string;

  constructor(env: Envtest, connections: number) {
    const cluster = env.kubeConfig.getCurrentCluster()!;
    this.server = cluster.server;
    this.token = env.kubeConfig.getCurrentUser()?.token ?? '';
    this.dispatcher = new Agent({
      connections,
      keepAliveTimeout: 60_000,
      connect: { ca: Buffer.from(cluster.caData ?? '', 'base64') },
    });
  }

  async call(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<{ status: number; json: unknown }> {
    const res = await request(this.server + path, {
      method,
      dispatcher: this.dispatcher,
      headers: {
        authorization: `Bearer ${this.token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': contentType }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    const json = text ? (JSON.parse(text) as unknown) : undefined;
    return { status: res.statusCode, json };
  }

  async must(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<unknown> {
    const { status, json } = await this.call(method, path, body, contentType);
    if (status < 200 || status >= 300)
      throw new Error(`${method} ${path}: HTTP ${status}: ${JSON.stringify(json).slice(0, 300)}`);
    return json;
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

/** A plain GET roundtrip (the kubectl-like calibration), sequential on a warm connection. */
export async function getRoundtrips(api: AdminApi, path: string, count: number): Promise<number[]> {
  for (let i = 0; i < 20; i++) await api.must('GET', path);
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = now();
    await api.must('GET', path);
    times.push(now() - t);
  }
  return times;
}

/**
 * The same GET through @kubernetes/client-node's CoreV1Api, the client the agent uses for its Node
 * patches, events and lease renewals; counts the TLS connections it opens (tls.connect calls).
 */
export async function clientNodeRoundtrips(
  env: Envtest,
  name: string,
  count: number,
): Promise<{ times: number[]; connections: number }> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const read = () => core.readNamespacedSecret({ name, namespace: 'kube-system' });
  for (let i = 0; i < 5; i++) await read();
  const module = tls as unknown as { connect: (...args: unknown[]) => unknown };
  const original = module.connect;
  let connections = 0;
  module.connect = (...args: unknown[]) => {
    connections++;
    return original.apply(tls, args);
  };
  const times: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const t = now();
      await read();
      times.push(now() - t);
    }
  } finally {
    module.connect = original;
  }
  return { times, connections };
}

export async function createMany(
  count: number,
  concurrency: number,
  create: (i: number) => Promise<unknown>,
): Promise<number> {
  const t = now();
  let next = 0;
  const worker = async () => {
    while (next < count) await create(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return now() - t;
}
