/**
 * The OSC key and names of the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go: calculateKeyForValues,
 * Key, generateOSCName; pkg/utils/gardener/shoot.go: CalculateDataStringForKubeletConfiguration).
 * The key is `gardener-node-agent-<pool>-` + the first 16 hex digits of sha256 over the
 * concatenated sha256 hex digests of every input that applies, in upstream's order, each written
 * as Go writes it (`time.Time.String()`, `resource.Quantity` through `%s`). In-place pools keep
 * `gardener-node-agent-<pool>`. Names carry no image name: `<key>-init`, `<key>-original`.
 */
import { sha256Hex } from './checksum.js';
import { goQuantityString } from './go-quantity-string.js';
import { goTimeString } from './go-time-string.js';
import type { OscPurpose } from './schema/operating-system-config.js';
import { majorMinor, parseSemVer, type SemVer } from './semver.js';
import { parseRfc3339 } from './time.js';
import { LABEL } from './well-known/labels.js';
import { NAME } from './well-known/names.js';

/** One credentials rotation of the Shoot's status (`status.credentials.rotation.<kind>`). */
export interface RotationInput {
  /** RFC 3339, as the Shoot's status holds it. */
  readonly lastInitiationTime?: string;
  readonly pendingWorkersRollouts?: readonly {
    readonly name: string;
    readonly lastInitiationTime?: string;
  }[];
}

export interface KeyV150Input {
  readonly pool: string;
  /** The effective version: the worker's own, else the shoot's. */
  readonly kubernetesVersion: SemVer | string;
  readonly machineType: string;
  readonly image?: { readonly name: string; readonly version?: string };
  readonly volume?: { readonly size: string; readonly type?: string };
  /** The worker's CRI name; undefined when the worker names none (it then adds nothing). */
  readonly criName?: string;
  /** `AutoInPlaceUpdate` or `ManualInPlaceUpdate`: the key is the pool's name alone. */
  readonly updateStrategy?: string;
  readonly credentialsRotation?: {
    readonly certificateAuthorities?: RotationInput;
    readonly serviceAccountKey?: RotationInput;
  };
  readonly nodeLocalDnsEnabled: boolean;
  readonly kubeProxy?: { readonly enabled?: boolean; readonly mode?: string };
  /** The effective kubelet configuration: the worker's, else the shoot's. */
  readonly kubelet?: {
    readonly kubeReserved?: {
      readonly cpu?: string;
      readonly memory?: string;
      readonly pid?: string;
      readonly ephemeralStorage?: string;
    };
    readonly evictionHard?: {
      readonly imageFSAvailable?: string;
      readonly imageFSInodesFree?: string;
      readonly memoryAvailable?: string;
      readonly nodeFSAvailable?: string;
      readonly nodeFSInodesFree?: string;
    };
    readonly cpuManagerPolicy?: string;
  };
}

const IN_PLACE_STRATEGIES = ['AutoInPlaceUpdate', 'ManualInPlaceUpdate'];

/** `IsUpdateStrategyInPlace`: the pool updates its nodes in place (GEP-31). */
export const isUpdateStrategyInPlace = (strategy: string | undefined): boolean =>
  strategy !== undefined && IN_PLACE_STRATEGIES.includes(strategy);

/** LastInitiationTimeForWorkerPool: the pool's pending rollout if listed, else the global time. */
export function lastInitiationTimeForWorkerPool(pool: string, rotation: RotationInput): string | undefined {
  const pending = rotation.pendingWorkersRollouts?.find((r) => r.name === pool);
  return pending ? pending.lastInitiationTime : rotation.lastInitiationTime;
}

/** The inputs hashed, in upstream's order, as the strings Go hashes. */
export function keyV150Data(input: KeyV150Input): string[] {
  const version =
    typeof input.kubernetesVersion === 'string'
      ? parseSemVer(input.kubernetesVersion)
      : input.kubernetesVersion;
  const data = [majorMinor(version), input.machineType];
  if (input.image) data.push(input.image.name + (input.image.version ?? ''));
  if (input.volume) {
    data.push(input.volume.size);
    if (input.volume.type !== undefined) data.push(input.volume.type);
  }
  if (input.criName !== undefined) data.push(input.criName);
  for (const rotation of [
    input.credentialsRotation?.certificateAuthorities,
    input.credentialsRotation?.serviceAccountKey,
  ]) {
    const time = rotation && lastInitiationTimeForWorkerPool(input.pool, rotation);
    if (time !== undefined) data.push(goTimeString(parseRfc3339(time)));
  }
  const below134 = version.major < 1 || (version.major === 1 && version.minor < 34);
  const ipvs = input.kubeProxy?.enabled === true && input.kubeProxy.mode === 'IPVS';
  if (input.nodeLocalDnsEnabled && (below134 || ipvs)) data.push('node-local-dns');
  const kubelet = input.kubelet;
  if (kubelet?.kubeReserved) {
    const r = kubelet.kubeReserved;
    data.push([r.cpu, r.memory, r.pid, r.ephemeralStorage].map(goQuantityString).join('-'));
  }
  if (kubelet?.evictionHard) {
    const e = kubelet.evictionHard;
    data.push(
      [e.imageFSAvailable, e.imageFSInodesFree, e.memoryAvailable, e.nodeFSAvailable, e.nodeFSInodesFree]
        .map((v) => v ?? '')
        .join('-'),
    );
  }
  if (kubelet?.cpuManagerPolicy !== undefined) data.push(kubelet.cpuManagerPolicy);
  return data;
}

/** `gardener-node-agent-<pool>-<16 hex>`, or `gardener-node-agent-<pool>` for in-place pools. */
export function keyV150(input: KeyV150Input): string {
  if (isUpdateStrategyInPlace(input.updateStrategy)) return `${NAME.keyPrefixNodeAgent}-${input.pool}`;
  const digests = keyV150Data(input)
    .map((v) => sha256Hex(v))
    .join('');
  return `${NAME.keyPrefixNodeAgent}-${input.pool}-${sha256Hex(digests).slice(0, 16)}`;
}

/** `<key>-init` (provision) or `<key>-original` (reconcile). */
export function oscNameV150(key: string, purpose: OscPurpose): string {
  return `${key}${purpose === 'provision' ? '-init' : '-original'}`;
}

/**
 * The labels gardenlet v1.150.0 puts on both OSCs of a pool: the pool, and the marker that the
 * provider's control-plane webhook mutated it (since v1.98.0, gardener #9981), which v1.91.4 lacks.
 */
export const MUTATED_BY_CONTROLPLANE_WEBHOOK_LABEL =
  'provider.extensions.gardener.cloud/mutated-by-controlplane-webhook';

export function oscLabelsV150(pool: string): Record<string, string> {
  return { [MUTATED_BY_CONTROLPLANE_WEBHOOK_LABEL]: 'true', [LABEL.workerPool]: pool };
}
