/**
 * NodeLabelsForWorkerPool (gardener v1.91.4 pkg/utils/gardener/shoot.go): the labels every node of
 * a pool carries.
 */
import { LABEL, LABEL_VALUE, type Worker } from '../../api/index.js';

export function nodeLabelsForWorkerPool(
  worker: Worker,
  nodeLocalDnsEnabled: boolean,
): Record<string, string> {
  const labels: Record<string, string> = { ...worker.labels };
  labels[LABEL.nodeRole] = LABEL_VALUE.nodeRoleNode;
  labels[LABEL.architecture] = worker.machine.architecture ?? 'amd64';
  labels[LABEL.nodeLocalDnsEnabled] = String(nodeLocalDnsEnabled);
  if (worker.systemComponents?.allow ?? true) labels[LABEL.systemComponents] = 'true';
  labels[LABEL.workerPool] = worker.name;
  labels[LABEL.workerGroupLegacy] = worker.name;
  if (worker.cri) {
    labels[LABEL.criName] = worker.cri.name;
    for (const runtime of worker.cri.containerRuntimes ?? [])
      labels[`${LABEL.containerRuntimePrefix}${runtime.type}`] = 'true';
  }
  return labels;
}
