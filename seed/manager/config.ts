/**
 * The controller-manager's configuration file (`gardener-osc controller-manager --config FILE`):
 * typed, defaulted and validated with field paths, like a Gardener component config. Go durations
 * are accepted where Gardener's configs use them and turned into milliseconds here once.
 */
import * as z from 'zod';
import {
  DEFAULT_GARDENER_VERSION,
  FEATURE_GATE_OPEN_TELEMETRY_COLLECTOR,
  FEATURE_GATE_USE_GARDENER_NODE_AGENT,
  type FieldError,
  formatGoDuration,
  GARDENER_VERSIONS,
  NODE_AGENT_IDENTITY,
  parseGoDuration,
  parseYaml,
} from '../../api/index.js';
import { inputErrorsFromZod } from '../../api/schema/unknown-fields.js';
import { zodFieldTree } from '../../api/schema/zod-field-tree.js';
import { RenderValuesSchema } from '../../charts/values/render-values.js';

export const CONTROLLER_MANAGER_API_VERSION = 'node-configuration.gardener.cloud/v1alpha1';
export const CONTROLLER_MANAGER_KIND = 'ControllerManagerConfiguration';

export const goDuration = z.string().transform((text, ctx) => {
  try {
    return parseGoDuration(text) / 1e6;
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
    return z.NEVER;
  }
});

/** `on`/`off` (YAML 1.1 reads a bare `off` as false, so booleans are accepted too). */
export const gateSwitch = z
  .union([z.boolean(), z.enum(['on', 'off'])])
  .transform((v) => (typeof v === 'boolean' ? v : v === 'on'));

/** A number of nodes, or a percentage of the worker pool (`25%`, rounded up, at least 1). */
export const nodeCount = z.union([
  z.number().int().min(1),
  z
    .string()
    .regex(/^([1-9][0-9]?|100)%$/, 'a number of nodes, or a percentage from 1% to 100%')
    .transform((text) => ({ percent: Number(text.slice(0, -1)) })),
]);

export type NodeCount = z.output<typeof nodeCount>;

/** The rollout gate (docs/rollout.md); each field can be overridden per Cluster by annotation. */
export const RolloutSettingsSchema = z.strictObject({
  /** off: no permissions on Nodes, every agent applies after its delay as upstream's does. */
  gate: gateSwitch.default(true),
  /** Nodes of the first wave, all in one zone. */
  canary: z.number().int().min(1).default(1),
  /** Each wave is this many times the last (1: every wave the canary's size). */
  growth: z.number().min(1).max(100).default(2),
  maxPerWave: nodeCount.default({ percent: 25 }),
  /** How long a node stays Ready with a fresh Lease after it reported success. */
  settleTime: goDuration.default(60_000),
  /** Failures of a rollout that do not halt it. */
  failuresTolerated: z.number().int().min(0).default(0),
  /** How often a rollout in progress is looked at without an event (Lease freshness, due grants). */
  checkInterval: goDuration.default(5_000),
  /** How long a wave may wait for a node after its permission before the wave is reported stalled. */
  waveTimeout: goDuration.default(15 * 60_000),
  /**
   * What a stalled wave does with the nodes it waits for (docs/rollout.md): `skipUnhealthy` skips
   * nodes that are down and halts on healthy nodes whose agent did not finish; `skip` skips all;
   * `halt` halts on all.
   */
  stalledNodes: z.enum(['skipUnhealthy', 'skip', 'halt']).default('skipUnhealthy'),
});

export type RolloutSettings = z.output<typeof RolloutSettingsSchema>;

/**
 * Whether a controller whose work gardener-resource-manager does in the v1.150.0 contract acts for
 * Clusters of that contract too (controllers/left-to-resource-manager.ts). Off by default: beside
 * a v1.150 gardener-resource-manager, two writers of the same annotations or approvals fight.
 */
const inV150Mode = () => z.boolean().default(false);

const labelValue = z
  .string()
  .regex(/^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/, 'not a label value');

const server = (port: number) =>
  z.strictObject({
    bindAddress: z.string().default(''),
    port: z.number().int().min(0).max(65535).default(port),
  });

export const ControllerManagerConfigurationSchema = z.strictObject({
  apiVersion: z.literal(CONTROLLER_MANAGER_API_VERSION),
  kind: z.literal(CONTROLLER_MANAGER_KIND),
  /** Path of the seed kubeconfig; default: $KUBECONFIG, else the in-cluster ServiceAccount. */
  seedKubeconfig: z.string().min(1).optional(),
  /**
   * Which Clusters (by label) this process acts on. Required and non-empty: a controller-manager
   * must never fight a real gardenlet over a shoot that did not opt in.
   */
  clusterSelector: z.strictObject({
    matchLabels: z
      .record(z.string().min(1), labelValue)
      .refine((m) => Object.keys(m).length > 0, 'at least one label is required (opt-in)'),
  }),
  /**
   * `managedResource`: shoot objects go into ManagedResources for gardener-resource-manager.
   * `direct`: they are server-side applied into the shoot, and our token-requestor fills tokens.
   */
  applyMode: z.enum(['managedResource', 'direct']).default('managedResource'),
  /**
   * The contract rendered for every selected Cluster (what gardenlet of this release writes); a
   * Cluster's annotation `node-configuration.gardener.cloud/gardener-version` overrides it.
   */
  gardenerVersion: z.enum(GARDENER_VERSIONS).default(DEFAULT_GARDENER_VERSION),
  featureGates: z
    .strictObject({
      [FEATURE_GATE_USE_GARDENER_NODE_AGENT]: z.boolean().default(true),
      /**
       * gardenlet v1.150.0's gate (Beta, on by default): off, the log shipper of v1.150.0
       * Clusters is valitail instead of the OpenTelemetry Collector. v1.91.4 Clusters ignore it.
       */
      [FEATURE_GATE_OPEN_TELEMETRY_COLLECTOR]: z.boolean().default(true),
    })
    .prefault({}),
  /**
   * How node agents authenticate and what limits them. `node` (default): each agent obtains a
   * client certificate naming its node (CSRs approved by this process), and the authorizer below
   * limits it to its own objects. `serviceAccount`: the shared ServiceAccount of v1.91 with its
   * RBAC, rendered exactly as v1.91 renders it (docs/security.md lists what it still allows).
   */
  nodeAgent: z
    .strictObject({
      identity: z.enum([NODE_AGENT_IDENTITY.node, NODE_AGENT_IDENTITY.serviceAccount]).default('node'),
      /**
       * How long after its identity was approved an agent whose Node is not registered yet may
       * read every pool's OSC secret (its pool is known only from its Node).
       */
      bootstrapWindow: goDuration
        .default(1_800_000)
        .refine((ms) => ms > 0 && ms <= 3_600_000, 'must be more than 0s and at most 1h'),
      /**
       * The longest client certificate lifetime (`spec.expirationSeconds`) the approver approves;
       * a request without expirationSeconds or asking for more is denied. A certificate cannot be
       * revoked, so this is how long a stolen one stays valid at most. The agent asks for 720h.
       */
      maxCertificateLifetime: goDuration
        .default(2_592_000_000)
        .refine(
          (ms) => ms >= 3_600_000 && ms <= 31_536_000_000 && ms % 1000 === 0,
          'must be whole seconds, at least 1h and at most 8760h',
        ),
      /**
       * The authorizer's HTTPS endpoint the shoots' kube-apiservers call
       * (`/webhooks/auth/nodeagent/<shoot namespace>`); without it no agent is authorized.
       */
      authorizer: z
        .strictObject({
          bindAddress: z.string().default(''),
          port: z.number().int().min(0).max(65535).default(10443),
          certFile: z.string().min(1),
          keyFile: z.string().min(1),
          /**
           * The key each shoot's bearer token is derived from (at least 32 characters): the
           * authorizer answers only a caller with its shoot's token
           * (charts/controller-manager/authorizer-caller-token.ts, docs/security.md).
           */
          tokenKeyFile: z.string().min(1),
        })
        .optional(),
    })
    .prefault({}),
  /** The same images the render values take (`gardener-osc render --values`). */
  images: RenderValuesSchema.shape.images.unwrap().prefault({}),
  /** Node logging (valitail) for every selected shoot. */
  nodeLogging: z.boolean().default(false),
  /**
   * The registry CA of v1.150.0 Clusters, as gardenlet takes it from its image vector's
   * `caBundle.inline`; the render values' `registryCaBundle`. v1.91.4 Clusters leave it unused.
   */
  registryCaBundle: RenderValuesSchema.shape.registryCaBundle,
  controllers: z
    .strictObject({
      operatingSystemConfig: z
        .strictObject({
          /**
           * Off beside a gardenlet that renders the selected shoots itself (docs/controller-manager.md,
           * deployment modes): then neither the render nor the migration runs, only the shoot controllers.
           */
          enabled: z.boolean().default(true),
          concurrentSyncs: z.number().int().min(1).max(100).default(5),
          /**
           * How long the OS extension may take before a Warning event (gardener v1.91.4
           * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go: 3m).
           */
          waitTimeout: goDuration.default(180_000),
          /** Periodic reconcile of every selected shoot. */
          syncPeriod: goDuration.default(3_600_000),
        })
        .prefault({}),
      nodeDelay: z
        .strictObject({
          enabled: z.boolean().default(true),
          minDelay: goDuration.default(0),
          inV150Mode: inV150Mode(),
        })
        .prefault({}),
      /** The node agent CSR approver (with per-node identities). */
      nodeAgentCsrApprover: z.strictObject({ inV150Mode: inV150Mode() }).prefault({}),
      /** The node agent authorizer's answers (with per-node identities; its endpoint: `nodeAgent.authorizer`). */
      nodeAgentAuthorizer: z.strictObject({ inV150Mode: inV150Mode() }).prefault({}),
      tokenLabels: z.strictObject({ enabled: z.boolean().default(true) }).prefault({}),
      migration: z
        .strictObject({
          /** How often progress is checked while nodes are still being migrated. */
          checkInterval: goDuration.default(10_000),
        })
        .prefault({}),
      rollout: RolloutSettingsSchema.prefault({}),
      osLocal: z
        .strictObject({
          enabled: z.boolean().default(false),
          /** The `spec.type`s (machine image names) it acts as the OS extension for. */
          types: z.array(z.string().min(1)).min(1).default(['local']),
        })
        .prefault({}),
    })
    .prefault({}),
  leaderElection: z
    .strictObject({
      enabled: z.boolean().default(true),
      namespace: z.string().min(1).default('garden'),
      name: z.string().min(1).default('gardener-osc-controller-manager'),
      leaseDuration: goDuration.default(15_000),
      renewDeadline: goDuration.default(10_000),
      retryPeriod: goDuration.default(2_000),
    })
    .prefault({})
    .refine((l) => l.renewDeadline < l.leaseDuration, {
      message: 'renewDeadline must be shorter than leaseDuration',
      path: ['renewDeadline'],
    }),
  server: z
    .strictObject({ healthProbes: server(8081).prefault({}), metrics: server(8080).prefault({}) })
    .prefault({}),
  logLevel: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  logFormat: z.enum(['json', 'text']).default('json'),
});

export type ControllerManagerConfiguration = z.output<typeof ControllerManagerConfigurationSchema>;

export type ConfigResult =
  | { ok: true; value: ControllerManagerConfiguration }
  | { ok: false; errors: FieldError[] };

export function decodeControllerManagerConfiguration(input: unknown): ConfigResult {
  const parsed = ControllerManagerConfigurationSchema.safeParse(input, { reportInput: true });
  return parsed.success
    ? { ok: true, value: parsed.data }
    : {
        ok: false,
        errors: inputErrorsFromZod(parsed.error, zodFieldTree(ControllerManagerConfigurationSchema)),
      };
}

export function parseControllerManagerConfiguration(text: string): ConfigResult {
  let input: unknown;
  try {
    input = parseYaml(text);
  } catch (e) {
    return { ok: false, errors: [{ type: 'Invalid', field: '', detail: (e as Error).message }] };
  }
  return decodeControllerManagerConfiguration(input);
}

/** The fields the schema reads as Go durations (and holds as milliseconds). */
export const DURATION_FIELDS = [
  ['controllers', 'operatingSystemConfig', 'waitTimeout'],
  ['controllers', 'operatingSystemConfig', 'syncPeriod'],
  ['controllers', 'nodeDelay', 'minDelay'],
  ['controllers', 'migration', 'checkInterval'],
  ['controllers', 'rollout', 'settleTime'],
  ['controllers', 'rollout', 'checkInterval'],
  ['controllers', 'rollout', 'waveTimeout'],
  ['nodeAgent', 'bootstrapWindow'],
  ['nodeAgent', 'maxCertificateLifetime'],
  ['leaderElection', 'leaseDuration'],
  ['leaderElection', 'renewDeadline'],
  ['leaderElection', 'retryPeriod'],
] as const;

/**
 * The configuration as a document `--config` reads back to the same value: every default written
 * out, durations as Go writes a metav1.Duration (`1h0m0s`, `15s`).
 */
export function encodeControllerManagerConfiguration(
  config: ControllerManagerConfiguration,
): Record<string, unknown> {
  const document = structuredClone(config) as unknown as Record<string, unknown>;
  for (const path of DURATION_FIELDS) {
    const parent = path.slice(0, -1).reduce((o, key) => o[key] as Record<string, unknown>, document);
    const key = path.at(-1)!;
    parent[key] = formatGoDuration(Math.round((parent[key] as number) * 1e6));
  }
  // A percentage of the pool is read from `25%` and written back the same way.
  const rollout = (document.controllers as { rollout: Record<string, unknown> }).rollout;
  const maxPerWave = config.controllers.rollout.maxPerWave;
  rollout.maxPerWave = typeof maxPerWave === 'number' ? maxPerWave : `${maxPerWave.percent}%`;
  return document;
}

/** Whether a Cluster's labels match the selector. */
export function clusterSelected(
  config: Pick<ControllerManagerConfiguration, 'clusterSelector'>,
  labels: Readonly<Record<string, string>> | null | undefined,
): boolean {
  return Object.entries(config.clusterSelector.matchLabels).every(([k, v]) => labels?.[k] === v);
}
