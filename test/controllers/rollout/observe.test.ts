/** Which Nodes take part in a pool's rollout: those that read the pool's OSC secret, in both contracts. */
import { expect } from 'chai';
import { ANNOTATION, key, LABEL, LABEL_VALUE, parseSemVer } from '../../../api/index.js';
import { type NodeObject, observePools, type SecretObject } from '../../../controllers/rollout/observe.js';

const secret = (name: string, pool = 'p'): SecretObject =>
  ({
    metadata: {
      name,
      namespace: 'kube-system',
      labels: { [LABEL.workerPool]: pool, [LABEL.gardenerRole]: LABEL_VALUE.roleOperatingSystemConfig },
      annotations: { [ANNOTATION.checksumDataScript]: 'a'.repeat(64) },
    },
  }) as SecretObject;

const node = (name: string, labels: Record<string, string>): NodeObject =>
  ({ metadata: { name, labels: { [LABEL.workerPool]: 'p', ...labels } } }) as NodeObject;

const members = (nodes: NodeObject[], secrets: SecretObject[]) =>
  observePools(['p'], nodes, secrets, new Map())[0]!.nodes.map((n) => n.name);

describe('rollout: the nodes of a pool', () => {
  const v91Key = key('p', parseSemVer('1.34.1'), 'containerd');
  const v91 = { [LABEL.kubernetesVersion]: '1.34.1', [LABEL.criName]: 'containerd' };

  it('v1.91.4: a node reads the secret of the key of its pool, Kubernetes minor and CRI', () => {
    const nodes = [node('same', v91), node('older-minor', { ...v91, [LABEL.kubernetesVersion]: '1.33.2' })];
    expect(members(nodes, [secret(v91Key)])).to.deep.equal(['same']);
  });

  it('v1.150.0: a node reads the secret its secret-name label names, whatever its minor', () => {
    const v150Key = 'gardener-node-agent-p-65ff4f8a02aee73f';
    const nodes = [
      node('named', { ...v91, [LABEL.nodeAgentSecretName]: v150Key }),
      node('other-key', { ...v91, [LABEL.nodeAgentSecretName]: 'gardener-node-agent-p-0123456789abcdef' }),
    ];
    expect(members(nodes, [secret(v150Key)])).to.deep.equal(['named']);
  });

  it('a contract switch: the old nodes read the old secret, so only machines of the new key take part', () => {
    const v150Key = 'gardener-node-agent-p-65ff4f8a02aee73f';
    const nodes = [node('old', v91), node('new', { ...v91, [LABEL.nodeAgentSecretName]: v150Key })];
    expect(members(nodes, [secret(v150Key)])).to.deep.equal(['new']);
    expect(members(nodes, [secret(v91Key)])).to.deep.equal(['old']);
  });
});
