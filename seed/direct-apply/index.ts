/** `applyMode: direct`: ManagedResource sets applied straight into the shoot, pruned by set label. */
export * from './apply.js';
export * from './managed-resource-sets.js';
export * from './object-set.js';
