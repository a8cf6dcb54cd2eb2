/**
 * The Node's role and zone labels (gardener v1.150.0
 * pkg/nodeagent/controller/operatingsystemconfig/reconciler.go, on every reconcile of a registered
 * Node): `node-role.kubernetes.io/<role>: ""`, the role `control-plane` when the OSC writes
 * `/etc/kubernetes/manifests/kube-apiserver.yaml`, else `worker`; and `topology.kubernetes.io/zone`
 * from `/var/lib/gardener-node-agent/zone` (trimmed) when that file exists. Labels are only added.
 */
import { readFile } from 'node:fs/promises';
import type { V1Node } from '@kubernetes/client-node';
import type { OperatingSystemConfig } from '../../../api/index.js';

export const ZONE_FILE = '/var/lib/gardener-node-agent/zone';
const KUBE_APISERVER_MANIFEST = '/etc/kubernetes/manifests/kube-apiserver.yaml';
const ZONE_LABEL = 'topology.kubernetes.io/zone';

export function nodeRole(osc: OperatingSystemConfig): 'control-plane' | 'worker' {
  return osc.spec.files?.some((f) => f.path === KUBE_APISERVER_MANIFEST) ? 'control-plane' : 'worker';
}

async function zoneOf(zoneFile: string): Promise<string | undefined> {
  try {
    return (await readFile(zoneFile, 'utf8')).trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** The labels to merge into the Node, or undefined when it carries them already. */
export async function roleAndZoneLabels(
  node: V1Node,
  osc: OperatingSystemConfig,
  zoneFile: string,
): Promise<Record<string, string> | undefined> {
  const wanted: Record<string, string> = { [`node-role.kubernetes.io/${nodeRole(osc)}`]: '' };
  const zone = await zoneOf(zoneFile);
  if (zone !== undefined) wanted[ZONE_LABEL] = zone;
  const labels = node.metadata?.labels ?? {};
  return Object.entries(wanted).every(([k, v]) => labels[k] === v) ? undefined : wanted;
}
