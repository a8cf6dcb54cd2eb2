/** The pure planner: last applied OSC + next OSC -> Plan. */
export * from './collect-files.js';
export * from './compute-plan.js';
export * from './explain.js';
export * from './file-mode.js';
export * from './merge-units.js';
export * from './plan.js';
export * from './semantic-equal.js';
export * from './unit-actions.js';
