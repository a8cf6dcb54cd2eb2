/** The readable plan shared by `gardener-node-agent plan` and `gardener-osc plan`. Pure. */
export * from './file-views.js';
export * from './format-output.js';
export * from './format-text.js';
export * from './pool-view.js';
export * from './summary.js';
export * from './view.js';
