/** The ManagedResource data and the node agents' RBAC in the Gardener v1.150.0 contract. */
import { brotliDecompressSync } from 'node:zlib';
import { expect } from 'chai';
import { nodeAgentRbacV150 } from '../../charts/managed-resource/rbac-v150.js';
import { registryDataV150, serializedObjectsV150 } from '../../charts/managed-resource/registry-v150.js';

/**
 * The bytes Go wrote for the same three objects with andybalholm/brotli v1.2.2, one Write per
 * object and separator as gardener v1.150.0 pkg/utils/managedresources/registry.go does.
 */
const GO_COMPRESSED_RBAC =
  '1b2b040064ebd42314905fd60bb6600fb646d7b6bc85dcff293605c94f4984028150ad8b4588e526468e6da7c68b3051e94994cc5a289584bb358e43f8f25b72c35b77f0b2885b412bb3271cc65e4eb6eb650c7d7343e604ed0eaec308012a1608e16752d71e60f57a2a69fe6e2027c61d143b25a30189a30e1155cc5a641d65b807c401c2476b7bee2060933737a9d095618f77687e623f8031061e500c9fe1438b138e17848ded011db430d7d174ed9c839a59';

describe('ManagedResource data of the v1.150.0 contract', () => {
  it('ships only the three bootstrap ClusterRoleBindings, without creationTimestamp', () => {
    const rbac = nodeAgentRbacV150();
    expect(rbac.map((o) => (o.metadata as { name: string }).name)).to.deep.equal([
      'system:node-bootstrapper',
      'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
      'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
    ]);
    expect(rbac.map((o) => (o.subjects as { name: string }[])[0]?.name)).to.deep.equal([
      'system:bootstrappers',
      'system:bootstrappers',
      'system:nodes',
    ]);
    expect(serializedObjectsV150(rbac)).to.not.contain('creationTimestamp');
  });

  it('concatenates the objects in file-name order, separated by ---', () => {
    const text = serializedObjectsV150(nodeAgentRbacV150());
    const names = [...text.matchAll(/^metadata:\n {2}name: (.*)$/gm)].map((m) => m[1]);
    expect(names).to.deep.equal([
      'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
      'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
      'system:node-bootstrapper',
    ]);
    expect(text.split('---\n')).to.have.length(3);
    expect(text.endsWith('name: system:bootstrappers\n')).to.equal(true);
  });

  it("compresses into data.yaml.br with the bytes of Go's brotli writer", () => {
    const data = registryDataV150(nodeAgentRbacV150());
    expect(Object.keys(data)).to.deep.equal(['data.yaml.br']);
    expect(data['data.yaml.br']!.toString('hex')).to.equal(GO_COMPRESSED_RBAC);
    expect(brotliDecompressSync(data['data.yaml.br']!).toString('utf8')).to.equal(
      serializedObjectsV150(nodeAgentRbacV150()),
    );
  });

  it('refuses two objects with one file name, as upstream', () => {
    const [one] = nodeAgentRbacV150();
    expect(() => serializedObjectsV150([one!, one!])).to.throw(
      'duplicate filename in registry: "clusterrolebinding____system_node-bootstrapper.yaml"',
    );
  });
});
