/**
 * What `gardener-osc manifests` prints is accepted by a real kube-apiserver with no warning, in a
 * namespace that enforces, warns and audits Pod Security "restricted" (server-side dry run): the
 * Deployment draws no Pod Security warning and a Pod from its template passes enforcement. A pod
 * that breaks the level draws the warning and is rejected, so the check is known to work.
 */
import { expect } from 'chai';
import { Agent, request } from 'undici';
import { parseYaml } from '../../api/index.js';
import { manifests } from '../../cli/manifests-command.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { ROOT } from '../support/package-build.js';

const NAMESPACE = 'gardener-osc-restricted';
const RESOURCES: Record<string, { path: string; namespaced: boolean }> = {
  ClusterRole: { path: '/apis/rbac.authorization.k8s.io/v1/clusterroles', namespaced: false },
  ClusterRoleBinding: { path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', namespaced: false },
  ServiceAccount: { path: '/api/v1/serviceaccounts', namespaced: true },
  ConfigMap: { path: '/api/v1/configmaps', namespaced: true },
  Deployment: { path: '/apis/apps/v1/deployments', namespaced: true },
  Service: { path: '/api/v1/services', namespaced: true },
  PodDisruptionBudget: { path: '/apis/policy/v1/poddisruptionbudgets', namespaced: true },
  Pod: { path: '/api/v1/pods', namespaced: true },
  Namespace: { path: '/api/v1/namespaces', namespaced: false },
  PriorityClass: { path: '/apis/scheduling.k8s.io/v1/priorityclasses', namespaced: false },
};

interface Answer {
  readonly status: number;
  readonly warnings: string[];
  readonly body: string;
}

describe('controller-manager manifests against a real API server (Pod Security restricted)', function () {
  this.timeout(120_000);
  let env: Envtest;
  let dispatcher: Agent;
  let token: string;

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'seed' });
    requireClusterScopedWrites(env);
    const cluster = env.kubeConfig.getCurrentCluster()!;
    dispatcher = new Agent({ connect: { ca: Buffer.from(cluster.caData ?? '', 'base64') } });
    token = env.kubeConfig.getCurrentUser()?.token ?? '';
    for (const object of [
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: NAMESPACE,
          labels: Object.fromEntries(
            ['enforce', 'warn', 'audit'].map((mode) => [`pod-security.kubernetes.io/${mode}`, 'restricted']),
          ),
        },
      },
      {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: 'gardener-system-900' },
        value: 999998900,
      },
    ]) {
      const answer = await apply(object, false);
      expect(answer.status, answer.body).to.be.oneOf([200, 201]);
    }
  });

  after(async () => {
    await dispatcher?.close();
  });

  /** Server-side apply (a dry run unless `dryRun` is false); the API server's warnings are kept. */
  async function apply(object: Record<string, unknown>, dryRun = true): Promise<Answer> {
    const { kind, metadata } = object as { kind: string; metadata: { name: string; namespace?: string } };
    const resource = RESOURCES[kind];
    if (!resource) throw new Error(`no resource path for ${kind}`);
    const base = resource.namespaced
      ? resource.path.replace(/\/([^/]+)$/, `/namespaces/${metadata.namespace}/$1`)
      : resource.path;
    const query = `fieldManager=gardener-osc-test&force=true${dryRun ? '&dryRun=All' : ''}`;
    const res = await request(`${env.server}${base}/${metadata.name}?${query}`, {
      method: 'PATCH',
      dispatcher,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/apply-patch+yaml' },
      body: JSON.stringify(object),
    });
    const warning = res.headers.warning;
    return {
      status: res.statusCode,
      warnings: warning === undefined ? [] : ([] as string[]).concat(warning),
      body: await res.body.text(),
    };
  }

  function printed(): Record<string, unknown>[] {
    return manifests({
      config: `${ROOT}/examples/controller-manager.yaml`,
      namespace: NAMESPACE,
      image: 'europe-docker.pkg.dev/gardener-project/releases/gardener-osc:v0.1.0',
      replicas: '2',
      priorityClass: 'gardener-system-900',
    })
      .split(/^---$/m)
      .map((d) => parseYaml(d) as Record<string, unknown>);
  }

  function podFrom(deployment: Record<string, unknown>, name: string): Record<string, unknown> {
    const template = (deployment.spec as { template: { metadata: object; spec: object } }).template;
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { ...template.metadata, name, namespace: NAMESPACE },
      spec: template.spec,
    };
  }

  it('accepts every object with no warning', async () => {
    const objects = printed();
    expect(objects.map((o) => o.kind)).to.include.members(['Deployment', 'Service', 'PodDisruptionBudget']);
    for (const object of objects) {
      const answer = await apply(object);
      expect(answer.status, `${object.kind}: ${answer.body}`).to.be.oneOf([200, 201]);
      expect(answer.warnings, String(object.kind)).to.deep.equal([]);
    }
  });

  it('a pod of the Deployment passes "restricted" enforcement; one that breaks it is warned about and rejected', async () => {
    const deployment = printed().find((o) => o.kind === 'Deployment')!;
    const pod = podFrom(deployment, 'controller-manager-probe');
    const accepted = await apply(pod);
    expect(accepted.status, accepted.body).to.be.oneOf([200, 201]);
    expect(accepted.warnings).to.deep.equal([]);

    const spec = pod.spec as { containers: { securityContext: Record<string, unknown> }[] };
    const { seccompProfile: _, ...withoutSeccomp } = spec.containers[0]!.securityContext;
    const broken = {
      ...pod,
      spec: { ...spec, containers: [{ ...spec.containers[0], securityContext: withoutSeccomp }] },
    };
    const template = (deployment.spec as { template: object }).template;
    const brokenDeployment = {
      ...deployment,
      spec: { ...(deployment.spec as object), template: { ...template, spec: broken.spec } },
    };
    const warned = await apply(brokenDeployment);
    expect(warned.warnings.join('\n')).to.contain('seccompProfile');
    const rejected = await apply(broken);
    expect(rejected.status).to.equal(403);
    expect(rejected.body, rejected.body).to.contain('violates PodSecurity');
  });
});
