/** systemd behind an interface: systemctl on nodes (test doubles: hack/node-agent-doubles). */
export * from './systemctl-systemd.js';
export * from './systemd.js';
export * from './unit-activity.js';
export * from './unit-status.js';
