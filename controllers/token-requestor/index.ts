/**
 * The direct-mode token-requestor (gardener v1.91.4 pkg/controller/tokenrequestor/reconciler.go):
 * GRM's token minting without GRM.
 */
export * from './add.js';
export * from './decide.js';
export * from './metrics.js';
export * from './reconciler.js';
export * from './renew-timestamp.js';
