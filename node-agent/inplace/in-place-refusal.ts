/**
 * In-place updates (GEP-31; gardener v1.150.0 pkg/nodeagent/controller/operatingsystemconfig
 * `computeInPlaceUpdates`, reconciler.go): when the last applied and the new OSC both carry
 * `spec.inPlaceUpdates`, a changed OS version, a higher kubelet minor or a new CA or
 * ServiceAccount-key rotation asks the agent to update the node in place. Ours cannot (OS update
 * command, kubelet migration, credential rotation are not implemented): it refuses such an OSC
 * before anything is written and says which capability is missing, and the controller labels the
 * Node `node.machine.sapcloud.io/update-result=failed` with that reason, as upstream's agent marks
 * an update it could not do (docs/compatibility.md V150-24).
 */
import type { OperatingSystemConfig } from '../../api/index.js';
import { tryParseSemVer } from '../../api/semver.js';

export const UPDATE_RESULT_LABEL = 'node.machine.sapcloud.io/update-result';
export const UPDATE_FAILED_REASON_ANNOTATION = 'node.machine.sapcloud.io/update-failed-reason';

export class InPlaceUpdateUnsupportedError extends Error {
  constructor(readonly missing: readonly string[]) {
    super(
      `in-place update refused: this node agent cannot ${missing.join(', ')} (GEP-31 in-place updates are not implemented); nothing was changed`,
    );
    this.name = 'InPlaceUpdateUnsupportedError';
  }
}

function minorOf(version: string): number | undefined {
  const v = tryParseSemVer(version);
  return v && v.major * 1000 + v.minor;
}

/** What the update from `previous` to `next` needs that this agent lacks (empty: nothing in place). */
export function missingInPlaceCapabilities(
  previous: OperatingSystemConfig | undefined,
  next: OperatingSystemConfig,
): string[] {
  const before = previous?.spec.inPlaceUpdates;
  const after = next.spec.inPlaceUpdates;
  if (!before || !after) return [];
  const missing: string[] = [];
  if (before.operatingSystemVersion !== after.operatingSystemVersion)
    missing.push(`update the operating system to ${after.operatingSystemVersion}`);
  const [from, to] = [minorOf(before.kubelet), minorOf(after.kubelet)];
  if (from !== undefined && to !== undefined && to > from)
    missing.push(`update the kubelet minor version to ${after.kubelet}`);
  const rotation = (o: typeof before, what: 'certificateAuthorities' | 'serviceAccountKey') =>
    o.credentialsRotation?.[what]?.lastInitiationTime;
  if (rotation(before, 'certificateAuthorities') !== rotation(after, 'certificateAuthorities'))
    missing.push('rotate the certificate authorities');
  if (rotation(before, 'serviceAccountKey') !== rotation(after, 'serviceAccountKey'))
    missing.push('rotate the service account key');
  return missing;
}

/** The Node patch that reports the refusal the way machine-controller-manager reads it. */
export function inPlaceFailurePatch(error: InPlaceUpdateUnsupportedError) {
  return {
    metadata: {
      labels: { [UPDATE_RESULT_LABEL]: 'failed' },
      annotations: { [UPDATE_FAILED_REASON_ANNOTATION]: error.message },
    },
  };
}
