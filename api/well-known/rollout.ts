/**
 * The names of the rollout gate (docs/rollout.md): all ours, in the project's own annotation
 * domain, never a name upstream Gardener uses or might use. Upstream agents and gardenlet ignore
 * every one of them; our agent obeys a permission only where one exists.
 */

/** The domain of every name below. */
export const ROLLOUT_DOMAIN = 'node-configuration.gardener.cloud';

/**
 * Written by the seed on a Node: the checksum (`checksum/data-script` of the pool's OSC secret)
 * the node's agent may apply. Without it the agent applies as upstream's does.
 */
export const PERMITTED_CHECKSUM_ANNOTATION = `${ROLLOUT_DOMAIN}/permitted-checksum`;

/**
 * Written by the seed on a Node whose node failed the rollout of a checksum (and not accepted by a
 * resume): the checksum and why. The halt lives on the Nodes as well as in the status, so losing
 * the status (deleted, or the gate turned off and on) does not give the next canary a
 * configuration that already failed. Not an agent's to write (NODE_AGENT_OWNED_NODE_METADATA).
 */
export const ROLLOUT_FAILURE_ANNOTATION = {
  checksum: `${ROLLOUT_DOMAIN}/failed-checksum`,
  reason: `${ROLLOUT_DOMAIN}/failed-reason`,
} as const;

/**
 * Written by the agent on its own Node after every apply: the checksum it applied, the result,
 * why, a message and the time. Exactly this set: an authorizer that limits an agent to its own
 * Node can allow these and nothing else of ours.
 */
export const APPLY_REPORT_ANNOTATION = {
  checksum: `${ROLLOUT_DOMAIN}/apply-checksum`,
  result: `${ROLLOUT_DOMAIN}/apply-result`,
  reason: `${ROLLOUT_DOMAIN}/apply-reason`,
  message: `${ROLLOUT_DOMAIN}/apply-message`,
  time: `${ROLLOUT_DOMAIN}/apply-time`,
} as const;

/** Every annotation the agent writes on its Node beyond upstream's `checksum/cloud-config-data`. */
export const NODE_AGENT_REPORT_ANNOTATIONS: readonly string[] = Object.values(APPLY_REPORT_ANNOTATION);

/**
 * `Verifying`: applied, the agent waits its settle time before it judges the units it restarted.
 * `Succeeded`, `Failed`: its verdict.
 */
export const APPLY_RESULTS = ['Verifying', 'Succeeded', 'Failed'] as const;
export type ApplyResultValue = (typeof APPLY_RESULTS)[number];

/** Why an apply ended as it did (`apply-reason`). */
export const APPLY_REASON = {
  /** Everything applied; the restarted units are active, the health checks pass. */
  applied: 'Applied',
  /** A restart or stop of a unit failed. */
  unitCommandFailed: 'UnitCommandFailed',
  /** A unit the apply restarted is not active after the settle time. */
  unitNotActive: 'UnitNotActive',
  /** kubelet or containerd does not answer its health check after the settle time. */
  healthCheckFailed: 'HealthCheckFailed',
  /** What runs differs from what was rendered (kubelet configz, sysctls), or could not be asked. */
  notInEffect: 'NotInEffect',
  /** Any other step failed: a file, an image, a directory. */
  applyFailed: 'ApplyFailed',
  /** The OSC does not decode or names bad paths: nothing was written. */
  invalidConfiguration: 'InvalidConfiguration',
  /** The apply failed its verification and the agent went back to the configuration before it. */
  rolledBack: 'RolledBack',
} as const;

/**
 * On the Cluster (the seed's `extensions.gardener.cloud` object): per-shoot settings that override
 * the controller-manager's `controllers.rollout`, and the operator's actions.
 */
export const ROLLOUT_CLUSTER_ANNOTATION = {
  gate: `rollout.${ROLLOUT_DOMAIN}/gate`,
  canary: `rollout.${ROLLOUT_DOMAIN}/canary`,
  growth: `rollout.${ROLLOUT_DOMAIN}/growth`,
  maxPerWave: `rollout.${ROLLOUT_DOMAIN}/max-per-wave`,
  settleTime: `rollout.${ROLLOUT_DOMAIN}/settle-time`,
  failuresTolerated: `rollout.${ROLLOUT_DOMAIN}/failures-tolerated`,
  waveTimeout: `rollout.${ROLLOUT_DOMAIN}/wave-timeout`,
  stalledNodes: `rollout.${ROLLOUT_DOMAIN}/stalled-nodes`,
  /** `resume` or `unguarded`, optionally `:pool1,pool2`; removed once acted on. */
  action: `rollout.${ROLLOUT_DOMAIN}/action`,
} as const;

/** The per-shoot rollout status in the seed namespace, like the migration's state. */
export const ROLLOUT_STATUS_CONFIGMAP = 'gardener-node-agent-rollout';
