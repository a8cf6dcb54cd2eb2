/** The direct-mode token-requestor (seed-side §8.1): GRM's token minting without GRM. */
export * from './add.js';
export * from './decide.js';
export * from './metrics.js';
export * from './reconciler.js';
export * from './renew-timestamp.js';
