/** The controller-manager benchmark's command line, and the names it gives what it creates. */
import { parseArgs } from 'node:util';
import { parseGoDuration } from '../../../api/index.js';
import { CONTROLLER_MANAGER_NAME } from '../../../charts/controller-manager/controller-manager.js';
import { commitOf } from '../support/revision.js';

const { values: flags } = parseArgs({
  options: {
    shoots: { type: 'string', default: '1,10,50' },
    'nodes-per-pool': { type: 'string', default: '100' },
    idle: { type: 'string', default: '5m' },
    baseline: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(
    'usage: npx tsx hack/bench/controller-manager.ts [--shoots 1,10,50] [--nodes-per-pool 100] [--idle 5m] [--baseline REV]',
  );
  process.exit(0);
}
export const SCALES = flags.shoots.split(',').map((s) => {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--shoots: "${s}" is not a positive number`);
  return n;
});
export const NODES_PER_POOL = Number(flags['nodes-per-pool']);
if (!Number.isInteger(NODES_PER_POOL) || NODES_PER_POOL < 1)
  throw new Error('--nodes-per-pool must be a positive number');
export const IDLE_MS = parseGoDuration(flags.idle) / 1e6;
if (IDLE_MS < 30_000) throw new Error('--idle must be at least 30s');
if (flags.baseline) commitOf(flags.baseline);

export const SELECTOR = { 'bench.node-configuration.gardener.cloud/selected': 'true' };
export const MANAGER_NAMESPACE = 'garden';
export const SEED_USER = `system:serviceaccount:${MANAGER_NAMESPACE}:${CONTROLLER_MANAGER_NAME}`;
export const shootUser = (i: number) => `system:serviceaccount:kube-system:bench-shoot-${i}`;
export const shootNamespace = (i: number) => `shoot--bench--s${i}`;
export const RECONCILE_TIMEOUT_MS = 15 * 60_000;

export const IDLE = flags.idle;
export const BASELINE = flags.baseline;
