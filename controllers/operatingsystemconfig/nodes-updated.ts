/**
 * Whether every node of every worker pool runs its pool's current OSC (seed-side §9.4, S-TV-23):
 * nodes about to be deleted and nodes of another key (a rolling update) are skipped; the others
 * must report the secret's checksum in `checksum/cloud-config-data`.
 */
import { ANNOTATION, key, LABEL, TAINT_PREFER_NO_SCHEDULE, tryParseSemVer } from '../../api/index.js';
import type { NodeInfo, OscSecretInfo } from '../../seed/shoot-nodes/shoot-node-state.js';

/** The reasons some node is not up to date; empty when all are. */
export function nodesNotUpdated(
  pools: readonly string[],
  secretsByPool: ReadonlyMap<string, OscSecretInfo>,
  nodesByPool: ReadonlyMap<string, readonly NodeInfo[]>,
): string[] {
  const errors: string[] = [];
  for (const pool of pools) {
    const secret = secretsByPool.get(pool);
    if (!secret) {
      errors.push(`missing operating system config secret metadata for worker pool "${pool}"`);
      continue;
    }
    const desired = secret.annotations?.[ANNOTATION.checksumDataScript];
    for (const node of nodesByPool.get(pool) ?? []) {
      if (
        node.taints?.some(
          (t) => t.key === TAINT_PREFER_NO_SCHEDULE.key && t.effect === TAINT_PREFER_NO_SCHEDULE.effect,
        )
      )
        continue;
      const versionText = node.labels?.[LABEL.kubernetesVersion] ?? '';
      const version = tryParseSemVer(versionText);
      if (!version) {
        errors.push(
          `failed checking whether node "${node.name}" will be deleted: invalid semantic version "${versionText}"`,
        );
        continue;
      }
      if (key(node.labels?.[LABEL.workerPool] ?? '', version, node.labels?.[LABEL.criName]) !== secret.name)
        continue;
      const current = node.annotations?.[ANNOTATION.checksumCloudConfigData];
      if (current === undefined) {
        errors.push(
          `the last successfully applied operating system config on node "${node.name}" hasn't been reported yet`,
        );
      } else if (current !== desired) {
        errors.push(
          `the last successfully applied operating system config on node "${node.name}" is outdated (current: ${current}, desired: ${desired})`,
        );
      }
    }
  }
  return errors;
}
