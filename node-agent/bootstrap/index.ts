/** The one-shot node setup: `bootstrap` and the migration steps the agent runs at start. */
export * from './bootstrap.js';
export * from './cloud-config-downloader-cleaner.js';
export * from './disk.js';
export * from './kubelet-bootstrap-kubeconfig.js';
