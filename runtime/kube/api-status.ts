/**
 * Whether a call to the API server failed with one of these HTTP statuses (404 NotFound, 409
 * Conflict, ...): a `KubeStatusError` of `KubeHttp`/`KubeClient`, or client-node's ApiException,
 * recognised by shape so that runtime code does not load client-node.
 */
import { KubeStatusError } from './kube-http.js';

function statusOf(error: unknown): number | undefined {
  if (error instanceof KubeStatusError) return error.status;
  if (error instanceof Error && 'code' in error && 'body' in error && 'headers' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'number' ? code : undefined;
  }
  return undefined;
}

export function isApiStatus(error: unknown, ...codes: number[]): boolean {
  const status = statusOf(error);
  return status !== undefined && codes.includes(status);
}
