/** The line `render` prints on a terminal: objects per kind, pools, bytes. */
import type { RenderResult } from './render-command.js';

export function renderSummary(result: Pick<RenderResult, 'objects' | 'pools'>, bytes: number): string {
  const kinds = new Map<string, number>();
  for (const o of result.objects) kinds.set(String(o.kind), (kinds.get(String(o.kind)) ?? 0) + 1);
  const perKind = [...kinds].map(([kind, n]) => `${n} ${kind}`).join(', ');
  const pools = result.pools.length === 0 ? 'no worker pools' : `worker pools ${result.pools.join(', ')}`;
  return `rendered ${result.objects.length} objects (${perKind}) for ${pools}, ${bytes} bytes`;
}
