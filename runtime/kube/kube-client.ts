/**
 * JSON reads and writes of single objects over `KubeHttp`: what the node agent needs (its Node,
 * Lease, Events, a Secret) without a generated client. Paths are the API server's own
 * (`/api/v1/nodes/<name>`); errors are `KubeStatusError` with the HTTP status and the Status reason.
 */
import type { KubeHttp } from './kube-http.js';

export const MERGE_PATCH = 'application/merge-patch+json';

export class KubeClient {
  constructor(readonly http: KubeHttp) {}

  async get<T>(path: string, query?: Record<string, string | undefined>): Promise<T> {
    return this.json<T>('GET', path, undefined, undefined, query);
  }

  create<T>(collectionPath: string, body: T): Promise<T> {
    return this.json<T>('POST', collectionPath, body);
  }

  replace<T>(path: string, body: T): Promise<T> {
    return this.json<T>('PUT', path, body);
  }

  /** A JSON merge patch (RFC 7386): `null` removes a field. */
  mergePatch<T>(path: string, patch: unknown): Promise<T> {
    return this.json<T>('PATCH', path, patch, MERGE_PATCH);
  }

  async delete(path: string): Promise<void> {
    const response = await this.http.send('DELETE', { path });
    await response.body.dump();
  }

  private async json<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH',
    path: string,
    body?: unknown,
    contentType?: string,
    query?: Record<string, string | undefined>,
  ): Promise<T> {
    const response = await this.http.send(method, { path, query }, body, contentType);
    return (await response.body.json()) as T;
  }
}

/** One path segment, escaped (object names are DNS names, but a caller's typo must not change the path). */
export function segment(name: string): string {
  return encodeURIComponent(name);
}
