/**
 * Everything `gardener-osc render` produces is accepted by a real API server (server-side dry
 * run): seed objects against the seed (with our CRDs), shoot objects against the shoot.
 */
import { ApiException, CoreV1Api, KubernetesObjectApi } from '@kubernetes/client-node';
import { expect } from 'chai';
import { DEFAULT_NOW, render } from '../../cli/render-command.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';

async function dryRunApply(env: Envtest, objects: Record<string, unknown>[]): Promise<string[]> {
  const api = KubernetesObjectApi.makeApiClient(env.kubeConfig);
  const accepted: string[] = [];
  for (const object of objects) {
    const { kind, metadata } = object as { kind: string; metadata: { name: string } };
    try {
      // server-side apply as a dry run: validated like a create, and indifferent to objects other suites left
      await api.patch(
        object as never,
        undefined,
        'All',
        'gardener-osc-dry-run',
        true,
        'application/apply-patch+yaml' as never,
      );
      accepted.push(`${kind}/${metadata.name}`);
    } catch (e) {
      const body = e instanceof ApiException ? String(e.body) : String(e);
      throw new Error(`${kind}/${metadata.name} rejected: ${body}`);
    }
  }
  return accepted;
}

describe('rendered objects against real API servers (server-side dry run)', function () {
  this.timeout(300_000);
  let seed: Envtest;
  let shoot: Envtest;

  before(async function () {
    this.timeout(20 * 60_000);
    seed = await startEnvtest({ name: 'seed' });
    shoot = await startEnvtest({ name: 'shoot' });
    requireClusterScopedWrites(shoot);
    try {
      await seed.kubeConfig
        .makeApiClient(CoreV1Api)
        .createNamespace({ body: { metadata: { name: 'shoot--dev--demo' } } });
    } catch (e) {
      if (!(e instanceof ApiException && e.code === 409)) throw e;
    }
  });

  for (const featureGates of ['UseGardenerNodeAgent=true', 'UseGardenerNodeAgent=false']) {
    it(`the seed accepts every seed object (${featureGates})`, async () => {
      const { objects } = render({ target: 'seed', now: DEFAULT_NOW, featureGates });
      const accepted = await dryRunApply(seed, objects);
      expect(accepted.length).to.equal(objects.length);
      expect(accepted.filter((a) => a.startsWith('OperatingSystemConfig/'))).to.have.length(6);
    });
  }

  for (const nodeAgentIdentity of ['node', 'serviceAccount']) {
    it(`the shoot accepts every object the ManagedResources put into it, legacy ones included (${nodeAgentIdentity} identities)`, async () => {
      const { objects } = render({ target: 'shoot', now: DEFAULT_NOW, legacyNodes: true, nodeAgentIdentity });
      expect(objects.filter((o) => o.kind === 'Secret')).to.have.length(6);
      expect(await dryRunApply(shoot, objects)).to.have.length(objects.length);
    });
  }
});
