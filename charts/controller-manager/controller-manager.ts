/**
 * What a landscape deploys to run `gardener-osc controller-manager` in the seed: its ClusterRole
 * and binding, and the workload (workload.ts: ServiceAccount, the configuration, a Deployment with
 * two replicas and leader election, the metrics Service, a PodDisruptionBudget; with per-node
 * identities the node agent authorizer's port, certificate and Service), plus the documented
 * minimum ClusterRole for the shoot identity of `gardener-internal`.
 */
import { basename, dirname } from 'node:path';
import { ApiObject, App, Chart } from 'cdk8s';
import {
  NODE_AGENT_IDENTITY,
  type NodeAgentIdentityMode,
  sha256Hex,
  stringifyYaml,
} from '../../api/index.js';
import { type ExplainedRule, RULE_REASONS_ANNOTATION, rbacRules, ruleReasons } from './rule.js';
import { seedRules } from './seed-rbac.js';
import { shootRules } from './shoot-rbac.js';
import {
  type AuthorizerEndpoint,
  addWorkload,
  authorizerServiceName,
  authorizerTlsSecretName,
} from './workload.js';

export const CONTROLLER_MANAGER_NAME = 'gardener-osc-controller-manager';
const RBAC = 'rbac.authorization.k8s.io';

export interface ControllerManagerChartInput {
  readonly namespace: string;
  readonly image: string;
  /** The ControllerManagerConfiguration document the pod reads (durations as Go durations). */
  readonly config: Record<string, unknown> & {
    leaderElection?: { name?: string };
    server?: { metrics?: { port?: number }; healthProbes?: { port?: number } };
    applyMode?: 'managedResource' | 'direct';
    nodeAgent?: {
      identity?: NodeAgentIdentityMode;
      authorizer?: { port?: number; certFile: string; keyFile: string; tokenKeyFile: string };
    };
  };
  readonly replicas?: number;
  readonly priorityClassName?: string;
  /** A VerticalPodAutoscaler for the Deployment. */
  readonly vpa?: boolean;
}

/** Every input of the seed manifests, resolved (the Helm chart passes template expressions). */
export interface ControllerManagerManifestInput {
  readonly namespace: string;
  readonly image: string;
  readonly replicas: number;
  readonly priorityClassName?: string;
  readonly leaseName: string;
  readonly configText: string;
  readonly configChecksum: string;
  readonly metricsPort: number;
  readonly healthPort: number;
  readonly authorizer?: AuthorizerEndpoint;
  readonly vpa?: boolean;
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

export function shootClusterRole(
  applyMode: 'managedResource' | 'direct',
  identity: NodeAgentIdentityMode = NODE_AGENT_IDENTITY.node,
) {
  return clusterRole(`${CONTROLLER_MANAGER_NAME}-shoot-access`, shootRules(applyMode, identity));
}

/** The Secret the authorizer's serving certificate and token key are mounted from (`tls.crt`, `tls.key`, `token.key`). */
export const AUTHORIZER_TLS_SECRET = authorizerTlsSecretName(CONTROLLER_MANAGER_NAME);
/** The Service the shoots' kube-apiservers reach the authorizer through (port 443). */
export const AUTHORIZER_SERVICE = authorizerServiceName(CONTROLLER_MANAGER_NAME);

/** The seed manifests as a cdk8s chart's objects: RBAC first, then the workload (workload.ts). */
export function renderControllerManager(input: ControllerManagerManifestInput): Record<string, unknown>[] {
  const chart = new Chart(new App(), 'controller-manager', { disableResourceNameHashes: true });
  const { namespace } = input;
  // cdk8s-plus-28's ClusterRole cannot name objects it does not create (the Lease) in resourceNames,
  // writes one rule per resource and stamps a namespace on cluster-scoped objects: core objects here
  new ApiObject(chart, 'cluster-role', seedClusterRole(input.leaseName));
  new ApiObject(
    chart,
    'cluster-role-binding',
    clusterRoleBinding(CONTROLLER_MANAGER_NAME, { name: CONTROLLER_MANAGER_NAME, namespace }),
  );
  addWorkload(chart, { ...input, name: CONTROLLER_MANAGER_NAME });
  return chart.toJson() as Record<string, unknown>[];
}

/**
 * With per-node identities and an authorizer endpoint: its port, and where its serving
 * certificate is mounted (one directory: one Secret is mounted there).
 */
function authorizerEndpoint(config: ControllerManagerChartInput['config']): AuthorizerEndpoint | undefined {
  const nodeAgent = config.nodeAgent;
  const authorizer =
    nodeAgent?.identity === NODE_AGENT_IDENTITY.serviceAccount ? undefined : nodeAgent?.authorizer;
  if (!authorizer) return undefined;
  const dir = dirname(authorizer.certFile);
  if (dirname(authorizer.keyFile) !== dir || dirname(authorizer.tokenKeyFile) !== dir)
    throw new Error(
      'nodeAgent.authorizer: certFile, keyFile and tokenKeyFile must be in one directory (one Secret is mounted there)',
    );
  return {
    port: authorizer.port ?? 10443,
    dir,
    certFile: basename(authorizer.certFile),
    keyFile: basename(authorizer.keyFile),
    tokenKeyFile: basename(authorizer.tokenKeyFile),
  };
}

export function controllerManagerObjects(input: ControllerManagerChartInput): Record<string, unknown>[] {
  const configText = stringifyYaml(input.config);
  return renderControllerManager({
    namespace: input.namespace,
    image: input.image,
    replicas: input.replicas ?? 2,
    priorityClassName: input.priorityClassName,
    leaseName: input.config.leaderElection?.name ?? CONTROLLER_MANAGER_NAME,
    configText,
    configChecksum: sha256Hex(configText),
    metricsPort: input.config.server?.metrics?.port ?? 8080,
    healthPort: input.config.server?.healthProbes?.port ?? 8081,
    authorizer: authorizerEndpoint(input.config),
    vpa: input.vpa,
  });
}
