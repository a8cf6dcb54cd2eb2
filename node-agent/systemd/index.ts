/** systemd behind an interface: systemctl for nodes, recorders for tests and demos. */
export * from './memory-systemd.js';
export * from './op-systemd.js';
export * from './recording-systemd.js';
export * from './simulated-unit-status.js';
export * from './systemctl-systemd.js';
export * from './systemd.js';
export * from './systemd-faults.js';
export * from './unit-status.js';
