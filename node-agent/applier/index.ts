/** The applier: Plan -> files and systemd, resumable after a crash. */
export * from './apply-osc.js';
export * from './execute-step.js';
export * from './host-root.js';
export * from './last-applied.js';
export * from './progress-file.js';
export * from './reverted.js';
export * from './steps.js';
export * from './validate-osc.js';
