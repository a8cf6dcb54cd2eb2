/** What an agent under test needs in the shoot: its OSC secret (with the checksum) and its Node. */
import type { CoreV1Api } from '@kubernetes/client-node';
import { oscSecretObject } from '../../hack/landscape/osc-secret.js';

export async function createOscSecretAndNode(
  core: CoreV1Api,
  o: { secretName: string; nodeName: string; oscYaml: string },
): Promise<void> {
  await core.createNamespacedSecret({
    namespace: 'kube-system',
    body: oscSecretObject({ name: o.secretName, oscYaml: o.oscYaml }),
  });
  await core.createNode({
    body: { metadata: { name: o.nodeName, labels: { 'kubernetes.io/hostname': o.nodeName } } },
  });
}
