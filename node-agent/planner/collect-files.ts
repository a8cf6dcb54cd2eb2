/**
 * collectAllFiles (gardener v1.91.4 pkg/nodeagent/controller/operatingsystemconfig/changes.go):
 * `spec.files ++ status.extensionFiles`, diffed by path over the union (moving a file between the
 * two lists is no change).
 */
import type { OperatingSystemConfig, OscFile } from '../../api/index.js';

/**
 * A path listed twice keeps its first position and takes the last definition: that is what writing
 * both in order leaves on disk, and one entry per path keeps planning idempotent.
 */
export function collectAllFiles(osc: OperatingSystemConfig): OscFile[] {
  const byPath = new Map<string, OscFile>();
  for (const file of [...(osc.spec.files ?? []), ...(osc.status?.extensionFiles ?? [])]) {
    byPath.set(file.path, file);
  }
  return [...byPath.values()];
}
