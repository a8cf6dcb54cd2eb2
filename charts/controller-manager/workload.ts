/**
 * The controller-manager's workload in the seed, as cdk8s-plus-28 constructs: ServiceAccount,
 * ConfigMap, Deployment and the metrics Service. It passes Pod Security "restricted" (non-root
 * user, no privilege escalation, every capability dropped, the runtime's seccomp profile, a
 * read-only root), spreads its replicas over zones and nodes, rolls when the configuration changes
 * (the config's checksum is a pod annotation) and keeps one replica through voluntary disruptions
 * (a PodDisruptionBudget).
 *
 * cdk8s-plus-28 has no construct for a PodDisruptionBudget (core ApiObject here) and no props for
 * `topologySpreadConstraints` (its `spread` writes pod anti-affinity) or `priorityClassName`: those
 * two are JSON patches on the Deployment.
 */
import { ApiObject, type Chart, Duration, JsonPatch, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import {
  SEED_EGRESS_POD_LABELS,
  WEBHOOK_TARGET_PORTS_ANNOTATION,
  webhookTargetPorts,
} from './seed-network.js';

/** The non-root user and group the image runs as (also set in the image's config). */
export const CONTROLLER_MANAGER_UID = 65532;
export const CONFIG_MOUNT = '/etc/gardener-osc';
export const CONFIG_KEY = 'config.yaml';
export const CONFIG_CHECKSUM_ANNOTATION = 'checksum/config';

export interface WorkloadInput {
  readonly name: string;
  readonly namespace: string;
  readonly image: string;
  readonly replicas: number;
  readonly priorityClassName?: string;
  /** The ControllerManagerConfiguration the pod reads, as YAML, and its checksum (rolls the pods). */
  readonly configText: string;
  readonly configChecksum: string;
  readonly metricsPort: number;
  readonly healthPort: number;
  /** With per-node identities: where the node agent authorizer listens. */
  readonly authorizer?: AuthorizerEndpoint;
  /** A VerticalPodAutoscaler for the Deployment (Gardener seeds run VPA; a plain cluster may lack its CRD). */
  readonly vpa?: boolean;
}

/** The node agent authorizer's port and its serving certificate's directory and file names. */
export interface AuthorizerEndpoint {
  readonly port: number;
  readonly dir: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** The key of the shoots' bearer tokens (charts/controller-manager/authorizer-caller-token.ts). */
  readonly tokenKeyFile: string;
}

/** The Secret the authorizer's serving certificate and token key are mounted from (`tls.crt`, `tls.key`, `token.key`). */
export const authorizerTlsSecretName = (name: string) => `${name}-authorizer-tls`;
/** The Service the shoots' kube-apiservers reach the authorizer through (port 443). */
export const authorizerServiceName = (name: string) => `${name}-authorizer`;

export function addWorkload(chart: Chart, input: WorkloadInput): void {
  const { name, namespace } = input;
  const labels = { 'app.kubernetes.io/name': name };

  const serviceAccount = new kplus.ServiceAccount(chart, 'service-account', {
    metadata: { name, namespace, labels },
    automountToken: true,
  });
  const configMap = new kplus.ConfigMap(chart, 'config', {
    metadata: { name: `${name}-config`, namespace, labels },
    data: { [CONFIG_KEY]: input.configText },
  });

  const deployment = new kplus.Deployment(chart, 'deployment', {
    metadata: { name, namespace, labels },
    replicas: input.replicas,
    select: false,
    podMetadata: {
      labels: { ...labels, ...SEED_EGRESS_POD_LABELS },
      annotations: {
        [CONFIG_CHECKSUM_ANNOTATION]: input.configChecksum,
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(input.metricsPort),
      },
    },
    serviceAccount,
    automountServiceAccountToken: true,
    // in-flight reconciles finish and the leader lease is handed over on SIGTERM
    terminationGracePeriod: Duration.seconds(60),
    securityContext: {
      ensureNonRoot: true,
      user: CONTROLLER_MANAGER_UID,
      group: CONTROLLER_MANAGER_UID,
    },
    containers: [
      {
        name: 'controller-manager',
        image: input.image,
        imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
        args: ['controller-manager', `--config=${CONFIG_MOUNT}/${CONFIG_KEY}`],
        ports: [
          { name: 'metrics', number: input.metricsPort },
          { name: 'health', number: input.healthPort },
        ],
        liveness: kplus.Probe.fromHttpGet('/healthz', {
          port: input.healthPort,
          periodSeconds: Duration.seconds(10),
        }),
        readiness: kplus.Probe.fromHttpGet('/readyz', {
          port: input.healthPort,
          periodSeconds: Duration.seconds(5),
        }),
        resources: {
          cpu: { request: kplus.Cpu.millis(50) },
          memory: { request: Size.mebibytes(128), limit: Size.mebibytes(512) },
        },
        securityContext: {
          ensureNonRoot: true,
          user: CONTROLLER_MANAGER_UID,
          group: CONTROLLER_MANAGER_UID,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          privileged: false,
          capabilities: { drop: [kplus.Capability.ALL] },
          seccompProfile: { type: kplus.SeccompProfileType.RUNTIME_DEFAULT },
        },
        volumeMounts: [
          {
            path: CONFIG_MOUNT,
            readOnly: true,
            volume: kplus.Volume.fromConfigMap(chart, 'config-volume', configMap, { name: 'config' }),
          },
        ],
      },
    ],
  });
  deployment.select(kplus.LabelSelector.of({ labels }));
  const selector = { matchLabels: labels };
  const podSpec = ApiObject.of(deployment);
  // cdk8s-plus labels every pod with its construct address (for its own selectors); ours select by name
  podSpec.addJsonPatch(JsonPatch.remove('/spec/template/metadata/labels/cdk8s.io~1metadata.addr'));
  podSpec.addJsonPatch(
    JsonPatch.add(
      '/spec/template/spec/topologySpreadConstraints',
      ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'].map((topologyKey) => ({
        topologyKey,
        maxSkew: 1,
        // a seed with one zone or one node still runs every replica
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: selector,
        matchLabelKeys: ['pod-template-hash'],
      })),
    ),
  );
  if (input.priorityClassName)
    podSpec.addJsonPatch(JsonPatch.add('/spec/template/spec/priorityClassName', input.priorityClassName));

  if (input.authorizer) addAuthorizer(chart, podSpec, input.authorizer, { name, namespace, labels });

  const service = new kplus.Service(chart, 'metrics', {
    metadata: { name: `${name}-metrics`, namespace, labels },
    ports: [{ name: 'metrics', port: input.metricsPort, targetPort: input.metricsPort }],
  });
  for (const [key, value] of Object.entries(labels)) service.selectLabel(key, value);

  new ApiObject(chart, 'disruption-budget', {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace, labels },
    spec: { maxUnavailable: 1, selector, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
  });

  if (input.vpa)
    // as Gardener's own seed components: requests follow usage, the memory limit stays
    new ApiObject(chart, 'vpa', {
      apiVersion: 'autoscaling.k8s.io/v1',
      kind: 'VerticalPodAutoscaler',
      metadata: { name, namespace, labels },
      spec: {
        targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
        updatePolicy: { updateMode: 'Auto' },
        resourcePolicy: {
          containerPolicies: [
            { containerName: '*', controlledValues: 'RequestsOnly', minAllowed: { memory: '64Mi' } },
          ],
        },
      },
    });
}

/**
 * The node agent authorizer on every replica: its container port, its serving certificate from
 * the TLS Secret, and the Service the shoots' kube-apiservers call (443). Patches on the
 * Deployment, as cdk8s-plus-28 names its volumes by construct address.
 */
function addAuthorizer(
  chart: Chart,
  podSpec: ApiObject,
  a: AuthorizerEndpoint,
  o: { name: string; namespace: string; labels: Record<string, string> },
): void {
  const container = '/spec/template/spec/containers/0';
  podSpec.addJsonPatch(
    JsonPatch.add(`${container}/ports/-`, { name: 'authorizer', containerPort: a.port }),
    JsonPatch.add(`${container}/volumeMounts/-`, {
      name: 'authorizer-tls',
      mountPath: a.dir,
      readOnly: true,
    }),
    JsonPatch.add('/spec/template/spec/volumes/-', {
      name: 'authorizer-tls',
      secret: {
        secretName: authorizerTlsSecretName(o.name),
        items: [
          { key: 'tls.crt', path: a.certFile },
          { key: 'tls.key', path: a.keyFile },
          { key: 'token.key', path: a.tokenKeyFile },
        ],
      },
    }),
  );
  new ApiObject(chart, 'authorizer-service', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: authorizerServiceName(o.name),
      namespace: o.namespace,
      labels: o.labels,
      annotations: { [WEBHOOK_TARGET_PORTS_ANNOTATION]: webhookTargetPorts(a.port) },
    },
    spec: { selector: o.labels, ports: [{ name: 'https', port: 443, targetPort: 'authorizer' }] },
  });
}
