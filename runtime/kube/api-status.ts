/**
 * Whether a call to the API server failed with one of these HTTP statuses (404 NotFound, 409
 * Conflict, ...). Every request of the project goes through `KubeHttp`, whose failures are the
 * one status-error type, `KubeStatusError`.
 */
import { KubeStatusError } from './kube-http.js';

export function isApiStatus(error: unknown, ...codes: number[]): boolean {
  return error instanceof KubeStatusError && codes.includes(error.status);
}
