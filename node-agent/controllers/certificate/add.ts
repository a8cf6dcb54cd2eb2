/**
 * The certificate controller: keeps the agent's per-node identity valid. It reads the certificate
 * of the identity kubeconfig, waits until its renewal deadline (renewal.ts), then asks for a new
 * certificate with the current one and replaces the kubeconfig atomically; the agent's client
 * re-reads the file when it changes, so no restart is needed. An expired certificate cannot renew
 * itself: the error says so, and the node needs a new bootstrap token (or replacement).
 */

import type { Clock } from '../../../runtime/clock.js';
import { newController } from '../../../runtime/controller-builder.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { loadKubeconfigFile } from '../../../runtime/kube/kubeconfig-file.js';
import { type Logger, silentLogger } from '../../../runtime/logging.js';
import type { RuntimeMetrics } from '../../../runtime/metrics.js';
import type { RunningController } from '../../../runtime/running-controller.js';
import { requestNodeAgentCertificate } from '../../identity/certificate-request.js';
import { certificateValidity, writeIdentityKubeconfig } from '../../identity/identity-kubeconfig.js';
import { certificateStep, renewalDeadline } from './renewal.js';

export const CERTIFICATE_CONTROLLER_NAME = 'certificate';
const KEY = 'certificate';

export interface CertificateControllerOptions {
  /** The identity kubeconfig on disk. */
  readonly file: string;
  readonly nodeName: string;
  /** The agent's client, authenticated by the current certificate. */
  readonly client: Pick<KubeClient, 'create' | 'get'>;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly pollIntervalMs?: number;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
  /** Called with the validity of each certificate read (metrics). */
  readonly onCertificate?: (notAfter: number) => void;
}

export function addCertificateController(
  o: CertificateControllerOptions,
  signal: AbortSignal,
): RunningController {
  const random = o.random ?? Math.random;
  const now = () => (o.clock ? o.clock.now() : Date.now());
  // one jitter per certificate, so looking again does not move the deadline
  let deadlineOf: { notAfter: number; deadline: number } | undefined;
  return newController(CERTIFICATE_CONTROLLER_NAME, {
    log: o.log ?? silentLogger,
    metrics: o.metrics,
    clock: o.clock,
    timeoutMs: 20 * 60_000,
  })
    .enqueueOnStart(KEY)
    .start(signal, async (_key, ctx) => {
      const current = await loadKubeconfigFile(o.file);
      const certificate = current.options.clientCertificate;
      if (!certificate) throw new Error(`${o.file} holds no client certificate`);
      const validity = certificateValidity(certificate);
      o.onCertificate?.(validity.notAfter);
      if (deadlineOf?.notAfter !== validity.notAfter)
        deadlineOf = { notAfter: validity.notAfter, deadline: renewalDeadline(validity, random()) };
      const step = certificateStep(now(), validity, deadlineOf.deadline);
      if (step.action === 'wait') return { requeueAfterMs: step.afterMs };
      if (step.expired)
        ctx.log.error(
          { notAfter: new Date(validity.notAfter).toISOString() },
          'The client certificate has expired; renewing it will fail without a new bootstrap token',
        );
      ctx.log.info(
        { notAfter: new Date(validity.notAfter).toISOString() },
        'Renewing the client certificate',
      );
      const issued = await requestNodeAgentCertificate({
        client: o.client,
        nodeName: o.nodeName,
        signal: ctx.signal,
        log: ctx.log,
        clock: o.clock,
        pollIntervalMs: o.pollIntervalMs,
      });
      await writeIdentityKubeconfig(o.file, {
        server: current.server,
        caPem: current.options.ca?.toString('utf8'),
        ...issued,
      });
      const renewed = certificateValidity(issued.certificatePem);
      o.onCertificate?.(renewed.notAfter);
      ctx.log.info(
        { csr: issued.csrName, notAfter: new Date(renewed.notAfter).toISOString() },
        'Renewed the client certificate',
      );
      return { requeueAfterMs: 0 };
    });
}
