/** The token-labels controller: `gardener.cloud/role=access-token` on the shoot's access-token secrets. */
export * from './add.js';
export * from './decide.js';
export * from './metrics.js';
export * from './reconciler.js';
