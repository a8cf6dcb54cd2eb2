/** Whether a client-node call failed with one of these HTTP statuses (404 NotFound, 409 Conflict, ...). */
import { ApiException } from '@kubernetes/client-node';

export function isApiStatus(error: unknown, ...codes: number[]): boolean {
  return error instanceof ApiException && codes.includes(error.code);
}
