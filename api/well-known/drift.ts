/**
 * The node condition the agent keeps on its Node while it watches for drift (docs/node-agent.md#drift,
 * docs/compatibility.md N31): ours, not upstream's; read by `gardener-osc rollout drift`.
 */
export const DRIFT_CONDITION_TYPE = 'NodeConfigurationDrift';

/** `DriftReported`: drift that is not repaired (yet); the others with status False. */
export const DRIFT_CONDITION_REASON = {
  reported: 'DriftReported',
  repaired: 'DriftRepaired',
  none: 'NoDrift',
} as const;
