/**
 * The shoot secret every node agent of a pool watches, in the Gardener v1.150.0 contract (gardener
 * v1.150.0 pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/secrets.go,
 * `OperatingSystemConfigSecret` with resolveSecretRefs, as for every shoot on managed
 * infrastructure): `osc.yaml` is a new object with only `criConfig`, `files`, `units` and
 * `inPlaceUpdates` of the spec and `extensionUnits`, `extensionFiles` and `inPlaceUpdates` of the
 * status; `metadata: {}` (apimachinery v0.36 no longer writes a zero creationTimestamp), and
 * `purpose: ""`, `type: ""` because Go writes those zero values. Secret references of
 * `spec.files` are inlined; those of `status.extensionFiles` are left as they are, as upstream.
 */
import {
  fileWire,
  OSC_API_VERSION,
  OSC_KIND,
  type OscFile,
  type OscUnit,
  stringifyYaml,
  unitWire,
} from '../../api/index.js';
import { inlineSecretRefs, oscSecretOf, type SeedSecrets, type ShootSecret } from './osc-secret.js';

/** The parts of a v1.150 reconcile OSC the stripped `osc.yaml` keeps, the v1.150-only ones as Go-shaped objects. */
export interface StrippableOscV150 {
  readonly spec: {
    /** `{name, cgroupDriver?, containerd?}` as the v1.150 OSC carries it. */
    readonly criConfig?: Readonly<Record<string, unknown>>;
    readonly units?: readonly OscUnit[];
    readonly files?: readonly OscFile[];
    readonly inPlaceUpdates?: Readonly<Record<string, unknown>>;
  };
  readonly status?: {
    readonly extensionUnits?: readonly OscUnit[];
    readonly extensionFiles?: readonly OscFile[];
    readonly inPlaceUpdates?: Readonly<Record<string, unknown>>;
  };
}

const nonEmpty = <T>(items: readonly T[] | undefined): readonly T[] | undefined =>
  items && items.length > 0 ? items : undefined;

/** The `osc.yaml` bytes of v1.150.0. */
export function oscYamlV150(osc: StrippableOscV150, secrets: SeedSecrets): string {
  const files = inlineSecretRefs(osc.spec.files, secrets);
  const status = osc.status ?? {};
  return stringifyYaml({
    apiVersion: OSC_API_VERSION,
    kind: OSC_KIND,
    metadata: {},
    spec: {
      criConfig: osc.spec.criConfig,
      files: nonEmpty(files)?.map((f) => fileWire(f, 'v1.150.0')),
      inPlaceUpdates: osc.spec.inPlaceUpdates,
      purpose: '',
      type: '',
      units: nonEmpty(osc.spec.units)?.map(unitWire),
    },
    status: {
      extensionFiles: nonEmpty(status.extensionFiles)?.map((f) => fileWire(f, 'v1.150.0')),
      extensionUnits: nonEmpty(status.extensionUnits)?.map(unitWire),
      inPlaceUpdates: status.inPlaceUpdates,
    },
  });
}

export function oscSecretV150(
  osc: StrippableOscV150,
  secretName: string,
  pool: string,
  secrets: SeedSecrets,
): ShootSecret {
  return oscSecretOf(oscYamlV150(osc, secrets), secretName, pool);
}
