/**
 * The node controller (gardener v1.91.4 pkg/nodeagent/controller/node/reconciler.go): units named
 * in the Node annotation `worker.gardener.cloud/restart-systemd-services` (comma-separated) are
 * restarted, `.service` appended where missing (v1.92), then the annotation is removed, and only
 * then the agent restarts itself if it was named (so it cannot loop). Restart errors are logged,
 * not retried.
 */
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION, UNIT } from '../../../api/index.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../../runtime/kube/resource.js';
import type { Logger } from '../../../runtime/logging.js';
import type { Systemd } from '../../systemd/systemd.js';

export function requestedUnits(value: string): { units: string[]; nodeAgent: boolean } {
  const units: string[] = [];
  let nodeAgent = false;
  for (const item of value.split(',')) {
    const name = item.endsWith('.service') ? item : `${item}.service`;
    if (name === UNIT.nodeAgent) nodeAgent = true;
    else if (!units.includes(name)) units.push(name);
  }
  return { units, nodeAgent };
}

/** Create: the annotation is set; update: it changed and is set (its removal is no work). */
export function restartAnnotationChanged(previous: V1Node | undefined, next: V1Node): boolean {
  const now = next.metadata?.annotations?.[ANNOTATION.restartSystemdServices];
  if (!now) return false;
  return previous?.metadata?.annotations?.[ANNOTATION.restartSystemdServices] !== now;
}

export async function restartRequestedServices(
  node: V1Node,
  client: Pick<KubeClient, 'mergePatch'>,
  systemd: Systemd,
  log: Logger,
): Promise<void> {
  const value = node.metadata?.annotations?.[ANNOTATION.restartSystemdServices];
  const name = node.metadata?.name;
  if (!value || !name) return;
  const { units, nodeAgent } = requestedUnits(value);
  for (const unit of units) {
    try {
      await systemd.restart(unit);
      log.info({ unit }, 'Restarted systemd unit as requested');
    } catch (error) {
      log.error({ err: error, unit }, 'Restarting the requested unit failed');
    }
  }
  await client.mergePatch(
    RESOURCE.node,
    { name },
    {
      metadata: { annotations: { [ANNOTATION.restartSystemdServices]: null } },
    },
  );
  if (nodeAgent) await systemd.restart(UNIT.nodeAgent);
}
