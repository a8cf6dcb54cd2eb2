/**
 * The shoot side of a registry CA in the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/shoot/system/system.go `computeResourcesData`, v1.149.0 #15150): ConfigMap
 * `kube-system/registry-ca-bundle` with the bundle base64-encoded under `bundle.crt`, and the Role
 * and RoleBinding that let bootstrapping machines (`system:bootstrappers`) read it, since node
 * init fetches it with the bootstrap token before the node agent exists. gardenlet writes them
 * with its shoot-system component; no gardenlet runs beside a standalone render, so without them
 * no machine with a registry CA would join (docs/compatibility.md, V150-4).
 */
import { DATA_KEY, NAMESPACE_KUBE_SYSTEM } from '../../api/index.js';

export const REGISTRY_CA_BUNDLE_NAME = 'registry-ca-bundle';
const RBAC_GROUP = 'rbac.authorization.k8s.io';

export function registryCaBundleObjectsV150(registryCaBundle: string): Record<string, unknown>[] {
  const metadata = { name: REGISTRY_CA_BUNDLE_NAME, namespace: NAMESPACE_KUBE_SYSTEM };
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata,
      data: { [DATA_KEY.bundle]: Buffer.from(registryCaBundle, 'utf8').toString('base64') },
    },
    {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'Role',
      metadata,
      rules: [
        {
          apiGroups: [''],
          resources: ['configmaps'],
          resourceNames: [REGISTRY_CA_BUNDLE_NAME],
          verbs: ['get'],
        },
      ],
    },
    {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'RoleBinding',
      metadata,
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: REGISTRY_CA_BUNDLE_NAME },
      subjects: [{ apiGroup: RBAC_GROUP, kind: 'Group', name: 'system:bootstrappers' }],
    },
  ];
}
