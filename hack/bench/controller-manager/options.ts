/** The controller-manager benchmark's command line, and the names it gives what it creates. */
import { parseGoDuration } from '../../../api/index.js';
import { CONTROLLER_MANAGER_NAME } from '../../../charts/controller-manager/controller-manager.js';
import { benchCommandLine } from '../support/command-line.js';
import { commitOf } from '../support/revision.js';

const { values: flags, quick } = benchCommandLine({
  script: 'hack/bench/controller-manager.ts',
  duration:
    'About 40 minutes at the defaults (twice that with --baseline); --quick (1 shoot, 2 Nodes per pool, idle 10s) about 2 minutes.',
  options: {
    shoots: { type: 'string', default: '1,10,50', quick: '1' },
    'nodes-per-pool': { type: 'string', default: '100', quick: '2' },
    idle: { type: 'string', default: '5m', quick: '10s' },
    baseline: { type: 'string', default: '' },
  },
});
export const QUICK = quick;
export const SCALES = flags.shoots.split(',').map((s) => {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--shoots: "${s}" is not a positive number`);
  return n;
});
export const NODES_PER_POOL = Number(flags['nodes-per-pool']);
if (!Number.isInteger(NODES_PER_POOL) || NODES_PER_POOL < 1)
  throw new Error('--nodes-per-pool must be a positive number');
export const IDLE_MS = parseGoDuration(flags.idle) / 1e6;
// an idle window shorter than the hourly figures' noise is a smoke run's business only
if (IDLE_MS < (quick ? 1_000 : 30_000)) throw new Error('--idle must be at least 30s');
if (flags.baseline) commitOf(flags.baseline);

export const SELECTOR = { 'bench.node-configuration.gardener.cloud/selected': 'true' };
export const MANAGER_NAMESPACE = 'garden';
export const SEED_USER = `system:serviceaccount:${MANAGER_NAMESPACE}:${CONTROLLER_MANAGER_NAME}`;
export const shootUser = (i: number) => `system:serviceaccount:kube-system:bench-shoot-${i}`;
export const shootNamespace = (i: number) => `shoot--bench--s${i}`;
export const RECONCILE_TIMEOUT_MS = 15 * 60_000;

export const IDLE = flags.idle;
export const BASELINE = flags.baseline || undefined;
