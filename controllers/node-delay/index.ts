/** Per-node reconciliation delays: the assignment (docs/node-delay.md) and its measures (upstream's formula is in api/). */
export * from './assign.js';
export * from './metrics.js';
