/** API requests from an envtest's audit log (level Metadata): who asked for what, when, with which result. */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';

interface AuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username: string };
  objectRef?: {
    resource?: string;
    subresource?: string;
    apiGroup?: string;
    namespace?: string;
    name?: string;
  };
  responseStatus?: { code?: number };
  requestReceivedTimestamp: string;
}

export interface ApiRequest {
  /** Epoch milliseconds the server received it. */
  readonly at: number;
  readonly username: string;
  readonly verb: string;
  /** `[group/]resource[/subresource]`, else the path. */
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly uri: string;
  readonly code: number | undefined;
}

export const WRITE_VERBS: ReadonlySet<string> = new Set([
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
]);

/**
 * Reads an audit log from a byte offset on, so a long run reads each part once; `requests` returns
 * every request received so far whose user `wanted` accepts.
 */
export class AuditLog {
  private offset = 0;
  private partial = '';
  private readonly received: (ApiRequest & { readonly id: string })[] = [];
  private readonly codes = new Map<string, number | undefined>();

  constructor(private readonly path: string | undefined) {}

  requests(wanted: (username: string) => boolean = () => true): ApiRequest[] {
    this.read();
    return this.received
      .filter((r) => wanted(r.username))
      .map(({ id, ...r }) => ({ ...r, code: this.codes.get(id) }));
  }

  private read(): void {
    if (!this.path || !existsSync(this.path)) return;
    const size = statSync(this.path).size;
    if (size <= this.offset) return;
    const fd = openSync(this.path, 'r');
    try {
      const buffer = Buffer.alloc(size - this.offset);
      const n = readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset += n;
      this.partial += buffer.subarray(0, n).toString('utf8');
    } finally {
      closeSync(fd);
    }
    const lines = this.partial.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) this.add(JSON.parse(line) as AuditEvent);
  }

  private add(e: AuditEvent): void {
    if (e.stage === 'ResponseComplete') {
      this.codes.set(e.auditID, e.responseStatus?.code);
      return;
    }
    if (e.stage !== 'RequestReceived') return;
    const ref = e.objectRef;
    const resource = ref?.resource
      ? `${ref.apiGroup ? `${ref.apiGroup}/` : ''}${ref.resource}${ref.subresource ? `/${ref.subresource}` : ''}`
      : e.requestURI.split('?')[0]!;
    this.received.push({
      id: e.auditID,
      at: Date.parse(e.requestReceivedTimestamp),
      username: e.user?.username ?? '',
      verb: e.verb,
      resource,
      namespace: ref?.namespace,
      uri: e.requestURI,
      code: undefined,
    });
  }
}

/** A watch stream's identity: the path with its selectors, without resourceVersion and timeout. */
export function watchStream(uri: string): string {
  const url = new URL(`http://x${uri}`);
  const selectors = ['labelSelector', 'fieldSelector']
    .map((k) => url.searchParams.get(k))
    .filter((v): v is string => Boolean(v));
  return [url.pathname, ...selectors].join(' ');
}
