/**
 * The actions a change can take on a node, from least to most disruptive (docs/least-disruption.md).
 * The order is the point: the agent takes, per unit, the highest action any of its changes needs,
 * and never less (MCO's NodeDisruptionPolicy has the same ladder with Reboot as its default,
 * openshift/machine-config-operator docs/NodeDisruptionPolicy.md; ours has today's Restart).
 */
export const DISRUPTION_ACTIONS = [
  'None',
  'DaemonReload',
  'Reload',
  'Restart',
  'DrainAndRestart',
  'Reboot',
] as const;

export type DisruptionAction = (typeof DISRUPTION_ACTIONS)[number];

export function rankOf(action: DisruptionAction): number {
  return DISRUPTION_ACTIONS.indexOf(action);
}

/** The more disruptive of the actions; `None` for none. */
export function strongest(actions: Iterable<DisruptionAction>): DisruptionAction {
  let result: DisruptionAction = 'None';
  for (const action of actions) if (rankOf(action) > rankOf(result)) result = action;
  return result;
}

export function isDisruptionAction(value: unknown): value is DisruptionAction {
  return typeof value === 'string' && (DISRUPTION_ACTIONS as readonly string[]).includes(value);
}
