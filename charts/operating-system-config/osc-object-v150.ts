/**
 * An OperatingSystemConfig object as gardenlet v1.150.0 creates it in the shoot namespace of the
 * seed (gardener v1.150.0 pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go,
 * `deploy`): name `<key>-init|-original`, the operation and timestamp annotations, the pool label
 * and the control-plane webhook marker; `type` and `providerConfig` only from a machine image;
 * `criConfig: {name}` when the pool names a CRI, and on the reconcile OSC of a containerd pool
 * also `cgroupDriver: systemd` and `containerd.sandboxImage` (the pause image); no
 * `reloadConfigFilePath`; `inPlaceUpdates` on the reconcile OSC of in-place pools. Written as a
 * Go-shaped object, since the v1.91 schema has none of the v1.150 fields.
 */
import {
  ANNOTATION,
  formatRfc3339,
  formatRfc3339Nano,
  type Instant,
  OPERATION,
  OSC_API_VERSION,
  OSC_KIND,
  type OscPurpose,
  oscLabelsV150,
  oscNameV150,
  parseRfc3339,
} from '../../api/index.js';
import type { ComponentOutput } from '../../components/component.js';

export interface OscV150Pool {
  readonly key: string;
  readonly pool: string;
  readonly image?: { readonly name: string; readonly version?: string; readonly providerConfig?: unknown };
  readonly criName?: string;
  /** The pause image (`pause-container` of the image vector), containerd's sandbox image. */
  readonly pauseImage?: string;
  /** For in-place pools: the kubelet's version (`1.34.1`) and the rotations' initiation times (RFC 3339). */
  readonly inPlace?: {
    readonly kubeletVersion: string;
    readonly caRotationLastInitiationTime?: string;
    readonly serviceAccountKeyRotationLastInitiationTime?: string;
  };
}

/** `spec.criConfig` of one OSC. */
export function criConfigV150(pool: OscV150Pool, purpose: OscPurpose): Record<string, unknown> | undefined {
  if (pool.criName === undefined) return undefined;
  if (pool.criName !== 'containerd' || purpose !== 'reconcile') return { name: pool.criName };
  return {
    name: pool.criName,
    cgroupDriver: 'systemd',
    containerd: { sandboxImage: pool.pauseImage ?? '' },
  };
}

function inPlaceUpdates(pool: OscV150Pool): Record<string, unknown> | undefined {
  const inPlace = pool.inPlace;
  if (!inPlace) return undefined;
  // metav1.Time is written as RFC 3339 in UTC, whole seconds
  const time = (t: string | undefined) => (t === undefined ? undefined : formatRfc3339(parseRfc3339(t)));
  const ca = time(inPlace.caRotationLastInitiationTime);
  const sa = time(inPlace.serviceAccountKeyRotationLastInitiationTime);
  return {
    kubelet: inPlace.kubeletVersion,
    operatingSystemVersion: pool.image?.version ?? '',
    ...(ca !== undefined || sa !== undefined
      ? {
          credentialsRotation: {
            certificateAuthorities: ca === undefined ? {} : { lastInitiationTime: ca },
            serviceAccountKey: sa === undefined ? {} : { lastInitiationTime: sa },
          },
        }
      : {}),
  };
}

export function oscObjectV150(
  pool: OscV150Pool,
  purpose: OscPurpose,
  contents: ComponentOutput,
  namespace: string,
  now: Instant,
): Record<string, unknown> {
  const criConfig = criConfigV150(pool, purpose);
  const updates = purpose === 'reconcile' ? inPlaceUpdates(pool) : undefined;
  return {
    apiVersion: OSC_API_VERSION,
    kind: OSC_KIND,
    metadata: {
      name: oscNameV150(pool.key, purpose),
      namespace,
      labels: oscLabelsV150(pool.pool),
      annotations: {
        [ANNOTATION.operation]: OPERATION.reconcile,
        [ANNOTATION.timestamp]: formatRfc3339Nano(now),
      },
    },
    spec: {
      ...(criConfig ? { criConfig } : {}),
      type: pool.image?.name ?? '',
      ...(pool.image?.providerConfig ? { providerConfig: pool.image.providerConfig } : {}),
      purpose,
      ...(contents.units.length > 0 ? { units: contents.units } : {}),
      ...(contents.files.length > 0 ? { files: contents.files } : {}),
      ...(updates ? { inPlaceUpdates: updates } : {}),
    },
  };
}
