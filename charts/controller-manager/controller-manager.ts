/**
 * What a landscape deploys to run `gardener-osc controller-manager` in the seed: its
 * ServiceAccount, ClusterRole and binding, the configuration, and a Deployment (two replicas,
 * leader election, probes on the health port, metrics scraped by Prometheus annotations), plus the
 * documented minimum ClusterRole for the shoot identity of `gardener-internal`.
 */
import { stringifyYaml } from '../../api/index.js';
import { type ExplainedRule, RULE_REASONS_ANNOTATION, rbacRules, ruleReasons } from './rule.js';
import { seedRules } from './seed-rbac.js';
import { shootRules } from './shoot-rbac.js';

export const CONTROLLER_MANAGER_NAME = 'gardener-osc-controller-manager';
const RBAC = 'rbac.authorization.k8s.io';

export interface ControllerManagerChartInput {
  readonly namespace: string;
  readonly image: string;
  /** The ControllerManagerConfiguration to mount (as an object; rendered to YAML). */
  readonly config: Record<string, unknown> & {
    leaderElection?: { name?: string };
    applyMode?: 'managedResource' | 'direct';
  };
  readonly replicas?: number;
}

function clusterRole(name: string, rules: readonly ExplainedRule[]) {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRole',
    metadata: { name, annotations: { [RULE_REASONS_ANNOTATION]: ruleReasons(rules) } },
    rules: rbacRules(rules),
  };
}

/** Binds a ClusterRole, under the role's own name, to one ServiceAccount. */
export function clusterRoleBinding(role: string, serviceAccount: { name: string; namespace: string }) {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: role },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', ...serviceAccount }],
  };
}

export function seedClusterRole(leaseName: string) {
  return clusterRole(CONTROLLER_MANAGER_NAME, seedRules(leaseName));
}

export function shootClusterRole(applyMode: 'managedResource' | 'direct') {
  return clusterRole(`${CONTROLLER_MANAGER_NAME}-shoot-access`, shootRules(applyMode));
}

export function controllerManagerObjects(input: ControllerManagerChartInput): Record<string, unknown>[] {
  const { namespace } = input;
  const labels = { 'app.kubernetes.io/name': CONTROLLER_MANAGER_NAME };
  const leaseName = input.config.leaderElection?.name ?? CONTROLLER_MANAGER_NAME;
  return [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: CONTROLLER_MANAGER_NAME, namespace, labels },
    },
    seedClusterRole(leaseName),
    clusterRoleBinding(CONTROLLER_MANAGER_NAME, { name: CONTROLLER_MANAGER_NAME, namespace }),
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${CONTROLLER_MANAGER_NAME}-config`, namespace, labels },
      data: { 'config.yaml': stringifyYaml(input.config) },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: CONTROLLER_MANAGER_NAME, namespace, labels },
      spec: {
        replicas: input.replicas ?? 2,
        selector: { matchLabels: labels },
        template: {
          metadata: {
            labels,
            annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '8080' },
          },
          spec: {
            serviceAccountName: CONTROLLER_MANAGER_NAME,
            // in-flight reconciles finish and the leader lease is handed over on SIGTERM
            terminationGracePeriodSeconds: 60,
            containers: [
              {
                name: 'controller-manager',
                image: input.image,
                args: ['controller-manager', '--config=/etc/gardener-osc/config.yaml'],
                ports: [
                  { name: 'metrics', containerPort: 8080 },
                  { name: 'health', containerPort: 8081 },
                ],
                livenessProbe: { httpGet: { path: '/healthz', port: 'health' }, periodSeconds: 10 },
                readinessProbe: { httpGet: { path: '/readyz', port: 'health' }, periodSeconds: 5 },
                resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '512Mi' } },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  runAsNonRoot: true,
                },
                volumeMounts: [{ name: 'config', mountPath: '/etc/gardener-osc', readOnly: true }],
              },
            ],
            volumes: [{ name: 'config', configMap: { name: `${CONTROLLER_MANAGER_NAME}-config` } }],
          },
        },
      },
    },
  ];
}
