/**
 * Which nodes the next wave takes (docs/rollout.md): the nodes a superseded rollout broke first,
 * all at once; then the canary (`canary` nodes, all in one zone); then waves `growth` times the
 * last, at most `maxPerWave`. Nodes that are Ready with a fresh Lease go before those that are not
 * (a node that is down already says nothing about the change); within that, in the order of their
 * reconciliation delays when every node has one (node-delay interleaves zones), else zones
 * interleaved by name. Within a wave the i-th node gets its permission i × window/n after the
 * wave starts (plus its own delay modulo that spacing): the spacing of a rollout by delays alone,
 * so restarts stay as spread. Pure.
 */
import { compareGoStrings } from '../../api/index.js';
import type { RolloutSettings } from '../../seed/manager/config.js';
import { interleaveByZone } from '../../seed/shoot-nodes/zone-order.js';
import { healthy } from './gate.js';
import type { NodeView } from './observe.js';
import { maxPerWave } from './settings.js';
import type { WaveMember } from './state.js';

function inOrder(nodes: readonly NodeView[]): NodeView[] {
  if (nodes.length > 0 && nodes.every((n) => n.delay !== undefined))
    return [...nodes].sort((a, b) => a.delay! - b.delay! || compareGoStrings(a.name, b.name));
  return interleaveByZone(nodes);
}

/** The candidates in the order waves take them. */
export function orderCandidates(candidates: readonly NodeView[], first: ReadonlySet<string>): NodeView[] {
  const firstNodes = candidates
    .filter((n) => first.has(n.name))
    .sort((a, b) => compareGoStrings(a.name, b.name));
  const rest = candidates.filter((n) => !first.has(n.name));
  return [...firstNodes, ...inOrder(rest.filter(healthy)), ...inOrder(rest.filter((n) => !healthy(n)))];
}

export interface WavePlan {
  readonly nodes: readonly NodeView[];
  /** The size the next growth step starts from; unchanged by the wave of a superseded rollout's failures. */
  readonly lastWaveSize: number;
  readonly kind: 'first' | 'canary' | 'wave';
}

export function nextWave(
  settings: Pick<RolloutSettings, 'canary' | 'growth' | 'maxPerWave'>,
  lastWaveSize: number,
  ordered: readonly NodeView[],
  first: ReadonlySet<string>,
  poolSize: number,
): WavePlan {
  const firstNodes = ordered.filter((n) => first.has(n.name));
  if (firstNodes.length > 0) return { nodes: firstNodes, lastWaveSize, kind: 'first' };
  const cap = maxPerWave(settings.maxPerWave, poolSize);
  if (lastWaveSize === 0) {
    const size = Math.min(settings.canary, cap);
    const zone = ordered[0]?.zone;
    return {
      nodes: ordered.filter((n) => n.zone === zone).slice(0, size),
      lastWaveSize: size,
      kind: 'canary',
    };
  }
  const size = Math.min(cap, Math.ceil(lastWaveSize * settings.growth));
  return { nodes: ordered.slice(0, size), lastWaveSize: size, kind: 'wave' };
}

/**
 * The wave's members: the i-th gets its permission i × window/poolSize after `now`, shifted by its
 * own reconciliation delay modulo that spacing, so the waves of pools that start together (their
 * canaries, above all) do not restart their first nodes in the same moment: node-delay spreads
 * the nodes of all pools over the window, and so does this within each spacing.
 */
export function staggered(
  nodes: readonly NodeView[],
  now: number,
  windowMs: number,
  poolSize: number,
): WaveMember[] {
  const spacing = poolSize > 0 ? windowMs / poolSize : 0;
  const phase = (n: NodeView) => (spacing > 0 && n.delay !== undefined ? (n.delay / 1e6) % spacing : 0);
  return nodes.map((n, i) => ({ node: n.name, grantAt: now + Math.floor(i * spacing + phase(n)) }));
}
