/**
 * Reading and changing a Cluster (extensions.gardener.cloud/v1alpha1) the way the controllers see
 * it, for the integration tests and the demo.
 */
import { type KubernetesObject, type KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';

// biome-ignore lint/suspicious/noExplicitAny: the shoot as the Cluster embeds it; callers edit a few fields
export type ShootSpec = Record<string, any>;
export interface ClusterObject extends KubernetesObject {
  spec: { shoot: { metadata: { annotations?: Record<string, string> }; spec: ShootSpec } };
}

/** The Cluster as JSON: client-node turns metadata timestamps into Dates, the controllers decode the API's JSON. */
export async function readCluster(api: KubernetesObjectApi, name: string): Promise<ClusterObject> {
  const live = await api.read({
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'Cluster',
    metadata: { name },
  } as never);
  return JSON.parse(JSON.stringify(live)) as ClusterObject;
}

/** Changes the embedded shoot (a merge patch of the whole `spec.shoot`). */
export async function patchClusterShoot(
  api: KubernetesObjectApi,
  name: string,
  mutate: (shoot: ClusterObject['spec']['shoot']) => void,
  fieldManager: string,
): Promise<void> {
  const current = await readCluster(api, name);
  const shoot = structuredClone(current.spec.shoot);
  mutate(shoot);
  await api.patch(
    {
      apiVersion: current.apiVersion,
      kind: current.kind,
      metadata: { name },
      spec: { shoot },
    } as KubernetesObject,
    undefined,
    undefined,
    fieldManager,
    undefined,
    PatchStrategy.MergePatch,
  );
}
