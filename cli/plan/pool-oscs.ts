/** The `osc.yaml` of every worker pool in a render of the shoot side (the pools' OSC secrets). */
import { DATA_KEY, LABEL, LABEL_VALUE, readOscSecret, type SecretLike } from '../../api/index.js';
import type { OscDocument } from '../../node-agent/plan-view/index.js';

export function poolOscs(shootObjects: readonly Record<string, unknown>[]): Map<string, OscDocument> {
  const pools = new Map<string, OscDocument>();
  for (const object of shootObjects) {
    const secret = object as SecretLike & { metadata?: { labels?: Record<string, string> } };
    const labels = secret.metadata?.labels ?? {};
    if (secret.kind !== 'Secret' || labels[LABEL.gardenerRole] !== LABEL_VALUE.roleOperatingSystemConfig)
      continue;
    const pool = labels[LABEL.workerPool];
    if (pool === undefined || secret.data?.[DATA_KEY.osc] === undefined) continue;
    const { raw, osc } = readOscSecret(secret);
    pools.set(pool, {
      text: raw,
      osc,
      ...(secret.metadata?.name ? { secretName: secret.metadata.name } : {}),
    });
  }
  return pools;
}
