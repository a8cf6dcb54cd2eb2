/**
 * The kubelet's own health endpoint (gardener v1.91.4
 * pkg/nodeagent/controller/healthcheck/kubelet.go): plain HTTP on localhost, 200 or it is failing.
 * A new connection per probe: a pooled socket to a kubelet that was restarted would only add a
 * failure of its own.
 */
import { get } from 'node:http';

export const KUBELET_HEALTHZ_URL = 'http://127.0.0.1:10248/healthz';
export const KUBELET_HEALTHZ_TIMEOUT_MS = 10_000;

/** Resolves when the kubelet is healthy; rejects with why not. */
export type KubeletProbe = (signal: AbortSignal) => Promise<void>;

export function kubeletHealthzProbe(url: string, timeoutMs = KUBELET_HEALTHZ_TIMEOUT_MS): KubeletProbe {
  return (signal) =>
    new Promise<void>((resolve, reject) => {
      const deadline = AbortSignal.timeout(timeoutMs);
      const request = get(url, { agent: false, signal: AbortSignal.any([signal, deadline]) }, (response) => {
        response.resume();
        // upstream dereferences a nil error here and panics (gardener v1.91.4
        // pkg/nodeagent/controller/healthcheck/kubelet.go): a non-200 is a failure like any other
        if (response.statusCode === 200) resolve();
        else reject(new Error(`unexpected status code ${response.statusCode}`));
      });
      request.on('error', (e) => {
        const why = deadline.aborted ? `no response within ${timeoutMs} ms` : e.message;
        reject(new Error(`Get "${url}": ${why}`, { cause: e }));
      });
    });
}
