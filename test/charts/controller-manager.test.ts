/**
 * The controller-manager's RBAC, seed and shoot, as golden files reviewed like code: no wildcard
 * anywhere, and every rule that is not narrowed to names says why.
 */
import { expect } from 'chai';
import { sha256Hex, stringifyYaml } from '../../api/index.js';
import {
  CONTROLLER_MANAGER_NAME,
  controllerManagerObjects,
  seedClusterRole,
  shootClusterRole,
} from '../../charts/controller-manager/controller-manager.js';
import { RULE_REASONS_ANNOTATION } from '../../charts/controller-manager/rule.js';
import { seedRules } from '../../charts/controller-manager/seed-rbac.js';
import { shootRules } from '../../charts/controller-manager/shoot-rbac.js';
import { expectGolden } from '../golden.js';

describe('controller-manager chart', () => {
  const ruleSets = {
    seed: seedRules(CONTROLLER_MANAGER_NAME),
    'shoot (managedResource)': shootRules('managedResource'),
    'shoot (direct)': shootRules('direct'),
    'shoot (direct, v1.91 ServiceAccount)': shootRules('direct', 'serviceAccount'),
  };

  for (const [name, rules] of Object.entries(ruleSets)) {
    it(`${name}: no wildcard, and a reason beside every rule without resourceNames`, () => {
      for (const rule of rules) {
        for (const field of [rule.apiGroups, rule.resources, rule.verbs, rule.resourceNames ?? []])
          expect(field, JSON.stringify(rule)).to.not.include('*');
        if (!rule.resourceNames) expect(rule.reason.length, JSON.stringify(rule)).to.be.greaterThan(20);
      }
    });
  }

  it('renders the seed RBAC rules (golden)', () => {
    expectGolden(
      'controller-manager/seed-clusterrole.yaml',
      stringifyYaml(seedClusterRole(CONTROLLER_MANAGER_NAME)),
    );
  });

  it('renders the documented minimum shoot role for direct mode (golden)', () => {
    expectGolden(
      'controller-manager/shoot-clusterrole-direct.yaml',
      stringifyYaml(shootClusterRole('direct')),
    );
  });

  it('keeps the reasons in an annotation, one line per rule, in rule order', () => {
    const role = seedClusterRole(CONTROLLER_MANAGER_NAME);
    const lines = role.metadata.annotations[RULE_REASONS_ANNOTATION].split('\n');
    expect(lines).to.have.length(role.rules.length);
    expect(lines[0]).to.match(/^0: extensions\.gardener\.cloud\/clusters \[get,list,watch,patch\]: /);
  });

  describe('the seed workload', () => {
    const config = (extra: Record<string, unknown> = {}) => ({
      leaderElection: { name: 'gardener-osc-controller-manager' },
      server: { metrics: { port: 9090 }, healthProbes: { port: 9091 } },
      ...extra,
    });
    const render = (extra: Record<string, unknown> = {}, priorityClassName?: string) =>
      controllerManagerObjects({
        namespace: 'garden',
        image: 'example.org/gardener-osc:v0.1.0',
        config: config(extra),
        priorityClassName,
      });
    type Pod = {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: {
        priorityClassName?: string;
        securityContext: Record<string, unknown>;
        topologySpreadConstraints: { topologyKey: string; whenUnsatisfiable: string }[];
        containers: {
          args: string[];
          ports: { name: string; containerPort: number }[];
          securityContext: Record<string, unknown>;
        }[];
      };
    };
    const byKind = (objects: Record<string, unknown>[], kind: string) =>
      objects.find((o) => o.kind === kind) as Record<string, unknown> & { spec: Record<string, unknown> };
    const podOf = (objects: Record<string, unknown>[]) =>
      (byKind(objects, 'Deployment').spec as { template: Pod }).template;

    it('is RBAC, ServiceAccount, configuration, Deployment, metrics Service and disruption budget', () => {
      expect(render().map((o) => o.kind)).to.deep.equal([
        'ClusterRole',
        'ClusterRoleBinding',
        'ServiceAccount',
        'ConfigMap',
        'Deployment',
        'Service',
        'PodDisruptionBudget',
      ]);
      const deployment = byKind(render(), 'Deployment');
      expect(deployment.spec.replicas).to.equal(2);
      expect(podOf(render()).spec.containers[0]?.args).to.deep.equal([
        'controller-manager',
        '--config=/etc/gardener-osc/config.yaml',
      ]);
    });

    it('meets Pod Security "restricted": non-root, no escalation, no capabilities, RuntimeDefault seccomp', () => {
      const pod = podOf(render());
      expect(pod.spec.securityContext).to.include({ runAsNonRoot: true, runAsUser: 65532 });
      expect(pod.spec.containers[0]!.securityContext).to.deep.include({
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        privileged: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod.metadata.labels).to.deep.include({ 'app.kubernetes.io/name': CONTROLLER_MANAGER_NAME });
    });

    it("carries the labels a Gardener seed's NetworkPolicies allow by: DNS, the seed's API server, the shoots' API servers", () => {
      // gardenlet's and gardener-resource-manager's NetworkPolicy controllers (Gardener v1.91)
      expect(podOf(render()).metadata.labels).to.deep.equal({
        'app.kubernetes.io/name': CONTROLLER_MANAGER_NAME,
        'networking.gardener.cloud/to-dns': 'allowed',
        'networking.gardener.cloud/to-runtime-apiserver': 'allowed',
        'networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443': 'allowed',
      });
    });

    it('adds a VerticalPodAutoscaler on request: requests follow usage, the memory limit stays', () => {
      const kinds = (objects: Record<string, unknown>[]) => objects.map((o) => o.kind);
      expect(kinds(render())).not.to.include('VerticalPodAutoscaler');
      const vpa = controllerManagerObjects({ namespace: 'garden', image: 'x', config: {}, vpa: true }).find(
        (o) => o.kind === 'VerticalPodAutoscaler',
      ) as { spec: { targetRef: unknown; resourcePolicy: { containerPolicies: unknown[] } } };
      expect(vpa.spec.targetRef).to.deep.equal({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: CONTROLLER_MANAGER_NAME,
      });
      expect(vpa.spec.resourcePolicy.containerPolicies).to.deep.equal([
        { containerName: '*', controlledValues: 'RequestsOnly', minAllowed: { memory: '64Mi' } },
      ]);
    });

    it('spreads over zones and nodes, keeps one replica in disruptions, takes a priority class', () => {
      const pod = podOf(render({}, 'gardener-system-900'));
      expect(
        pod.spec.topologySpreadConstraints.map((c) => [c.topologyKey, c.whenUnsatisfiable]),
      ).to.deep.equal([
        ['topology.kubernetes.io/zone', 'ScheduleAnyway'],
        ['kubernetes.io/hostname', 'ScheduleAnyway'],
      ]);
      expect(pod.spec.priorityClassName).to.equal('gardener-system-900');
      expect(podOf(render()).spec).not.to.have.property('priorityClassName');
      expect(byKind(render(), 'PodDisruptionBudget').spec).to.deep.include({
        maxUnavailable: 1,
        selector: { matchLabels: { 'app.kubernetes.io/name': CONTROLLER_MANAGER_NAME } },
      });
    });

    it('serves metrics on the configured port through a Service; probes use the health port', () => {
      const objects = render();
      expect(podOf(objects).spec.containers[0]!.ports).to.deep.equal([
        { name: 'metrics', containerPort: 9090 },
        { name: 'health', containerPort: 9091 },
      ]);
      expect(byKind(objects, 'Service').spec).to.deep.include({
        ports: [{ name: 'metrics', port: 9090, targetPort: 9090 }],
        selector: { 'app.kubernetes.io/name': CONTROLLER_MANAGER_NAME },
      });
      expect(podOf(objects).metadata.annotations['prometheus.io/port']).to.equal('9090');
    });

    it('rolls the pods when the configuration changes: its checksum is a pod annotation', () => {
      const checksum = (objects: Record<string, unknown>[]) =>
        podOf(objects).metadata.annotations['checksum/config'];
      const data = (byKind(render(), 'ConfigMap') as unknown as { data: Record<string, string> }).data[
        'config.yaml'
      ]!;
      expect(checksum(render())).to.equal(sha256Hex(data));
      expect(checksum(render({ logLevel: 'debug' }))).not.to.equal(checksum(render()));
      expect(checksum(render())).to.equal(checksum(render()));
    });
  });
});
