/**
 * When an OSC counts as reconciled by its OS extension (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go, S-TV-26): the live
 * object carries our timestamp, has no error, its generation was observed, no operation is pending,
 * the last operation succeeded after our timestamp (to the second), and the user data is
 * referenced.
 */
import { ANNOTATION, type OperatingSystemConfig } from '../../api/index.js';

export type Readiness = { ready: true } | { ready: false; reason: string; retriable: boolean };

const notReady = (reason: string, retriable = true): Readiness => ({ ready: false, reason, retriable });

function seconds(timestamp: string): number {
  return Math.floor(Date.parse(timestamp) / 1000);
}

export function oscReadiness(
  written: OperatingSystemConfig,
  live: OperatingSystemConfig | undefined,
): Readiness {
  const name = `${written.metadata.namespace}/${written.metadata.name}`;
  if (!live) return notReady(`OperatingSystemConfig ${name} not found`);
  const ours = written.metadata.annotations?.[ANNOTATION.timestamp];
  const theirs = live.metadata.annotations?.[ANNOTATION.timestamp];
  if (ours !== undefined && ours !== theirs) {
    return notReady(
      `OperatingSystemConfig ${name} does not carry the timestamp ${ours} yet (found ${theirs ?? 'none'})`,
    );
  }
  const status = live.status ?? {};
  if (status.lastError)
    return notReady(`error during reconciliation: ${status.lastError.description}`, false);
  if ((status.observedGeneration ?? 0) !== (live.metadata.generation ?? 0)) {
    return notReady(
      `observed generation outdated (${status.observedGeneration ?? 0}/${live.metadata.generation ?? 0})`,
    );
  }
  if (live.metadata.annotations?.[ANNOTATION.operation]) return notReady('gardener operation in progress');
  const op = status.lastOperation;
  if (!op) return notReady('extension did not record a last operation yet');
  if (op.state !== 'Succeeded') return notReady(`extension state is not Succeeded but ${op.state}`);
  if (ours !== undefined && seconds(ours) > seconds(op.lastUpdateTime)) {
    return notReady('extension did not finish the requested reconciliation yet');
  }
  if (!status.cloudConfig) return notReady('no cloud config information provided in status');
  return { ready: true };
}
