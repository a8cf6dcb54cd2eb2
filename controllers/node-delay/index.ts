/** Per-node reconciliation delays: the assignment (docs/node-delay.md), upstream's formula, measures. */
export * from './assign.js';
export * from './metrics.js';
export * from './upstream.js';
