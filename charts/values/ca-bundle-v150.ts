/**
 * The CA bundle of a pool's OSC in the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go `getOperatingSystemConfigCABundle`,
 * and pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go for the pool's own
 * CA): the cloud profile's CA before the cluster CA, and no leading line break when the profile
 * has none (v1.149.0; v1.91.4 wrote one, see worker-pool-context.ts `shootCaBundle`).
 */
export function osCaBundleV150(
  cloudProfileCa: string | undefined,
  clusterCa: string,
  workerCa: string | undefined,
): string {
  const shoot = cloudProfileCa === undefined ? clusterCa : `${cloudProfileCa}\n${clusterCa}`;
  return workerCa === undefined ? shoot : `${shoot}\n${workerCa}`;
}
