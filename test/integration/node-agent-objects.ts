/** What an agent under test needs in the shoot: its OSC secret (with the checksum) and its Node. */
import type { CoreV1Api } from '@kubernetes/client-node';
import { sha256Hex } from '../../api/index.js';

export async function createOscSecretAndNode(
  core: CoreV1Api,
  o: { secretName: string; nodeName: string; oscYaml: string },
): Promise<void> {
  await core.createNamespacedSecret({
    namespace: 'kube-system',
    body: {
      metadata: { name: o.secretName, annotations: { 'checksum/data-script': sha256Hex(o.oscYaml) } },
      data: { 'osc.yaml': Buffer.from(o.oscYaml).toString('base64') },
    },
  });
  await core.createNode({
    body: { metadata: { name: o.nodeName, labels: { 'kubernetes.io/hostname': o.nodeName } } },
  });
}
