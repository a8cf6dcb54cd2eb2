/** Fakes for the health-check tests: a kubelet /healthz on a free port, and an event sink. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventObject, EventType } from '../../../runtime/events.js';

export interface FakeKubelet {
  readonly url: string;
  /** What /healthz answers; 0: never answers. */
  status: number;
  hits: number;
  close(): Promise<void>;
}

export async function startFakeKubelet(): Promise<FakeKubelet> {
  const server = createServer((req, res) => {
    kubelet.hits++;
    if (req.url !== '/healthz') res.writeHead(404).end();
    else if (kubelet.status !== 0) res.writeHead(kubelet.status).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubelet: FakeKubelet = {
    url: `http://127.0.0.1:${port}/healthz`,
    status: 200,
    hits: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return kubelet;
}

/** A URL nothing listens on: a port that was free a moment ago. */
export async function unreachableUrl(): Promise<string> {
  const kubelet = await startFakeKubelet();
  await kubelet.close();
  return kubelet.url;
}

export interface RecordedEvent {
  readonly object: string;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
}

export class FakeEvents {
  readonly recorded: RecordedEvent[] = [];

  event(object: EventObject, type: EventType, reason: string, message: string): Promise<void> {
    this.recorded.push({ object: `${object.kind}/${object.name}`, type, reason, message });
    return Promise.resolve();
  }

  messages(): string[] {
    return this.recorded.map((e) => `${e.type} ${e.reason}: ${e.message}`);
  }
}
