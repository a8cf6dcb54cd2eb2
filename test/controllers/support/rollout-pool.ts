/** A pool of nodes as the rollout decider sees them, and the decider driven over it (rollout tests). */
import { decidePool, type PoolDecision } from '../../../controllers/rollout/decide.js';
import type { NodeView } from '../../../controllers/rollout/observe.js';
import type { PoolRollout } from '../../../controllers/rollout/state.js';
import { type RolloutSettings, RolloutSettingsSchema } from '../../../seed/manager/config.js';

export const T0 = '0'.repeat(64);
export const T1 = '1'.repeat(64);
export const T2 = '2'.repeat(64);
export const SETTINGS: RolloutSettings = RolloutSettingsSchema.parse({});
export const START = Date.parse('2026-03-01T10:00:00Z');
export const WINDOW = 300_000;

export function node(name: string, zone: string, o: Partial<NodeView> = {}): NodeView {
  return {
    name,
    zone,
    applied: T0,
    permitted: T0,
    ready: true,
    readySince: START - 3600_000,
    leaseFresh: true,
    ...o,
  };
}

/** n nodes spread round robin over zones a, b, c, named n01.. */
export function pool(n: number, o: Partial<NodeView> = {}): NodeView[] {
  return Array.from({ length: n }, (_, i) => node(`n${String(i + 1).padStart(2, '0')}`, 'abc'[i % 3]!, o));
}

export function decide(
  nodes: readonly NodeView[],
  previous: PoolRollout | undefined,
  now: number,
  o: { target?: string; settings?: Partial<RolloutSettings>; action?: 'resume' | 'unguarded' } = {},
): PoolDecision {
  return decidePool({
    settings: { ...SETTINGS, ...o.settings },
    now,
    windowMs: WINDOW,
    observation: { pool: 'p', target: 'target' in o ? o.target : T1, nodes },
    previous,
    action: o.action,
  });
}

export const reasons = (d: PoolDecision) => d.events.map((e) => e.reason);
export const granted = (d: PoolDecision) => [...d.permissions].filter(([, c]) => c === T1).map(([n]) => n);

/** The nodes as the seed's patches leave them (nothing applied yet). */
export function withPermissions(nodes: NodeView[], d: PoolDecision): NodeView[] {
  return nodes.map((n) => ({ ...n, permitted: d.permissions.get(n.name) ?? n.permitted }));
}

/** The nodes as the agents leave them once they applied what they were permitted. */
export function applyPermitted(nodes: NodeView[], d: PoolDecision, target = T1): NodeView[] {
  return nodes.map((n) => {
    const permitted = d.permissions.get(n.name) ?? n.permitted;
    if (permitted !== target || n.applied === target) return { ...n, permitted };
    return {
      ...n,
      permitted,
      applied: target,
      report: { checksum: target, result: 'Succeeded', reason: 'Applied', message: 'applied' },
    };
  });
}
