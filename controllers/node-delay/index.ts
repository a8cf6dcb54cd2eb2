/**
 * Per-node reconciliation delays: the assignment (docs/node-delay.md), the plan of a shoot's
 * patches, the assignment's measures and the controller's metrics (upstream's formula is in api/).
 */
export * from './assign.js';
export * from './decide.js';
export * from './measures.js';
export * from './metrics.js';
export * from './reconciler.js';
