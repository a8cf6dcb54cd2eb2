/** The seed lookups of a shoot: CA bundles, SSH keys, shoot credentials, and the render values built from them. */
export * from './ca-bundle.js';
export * from './label-selectors.js';
export * from './newest-first.js';
export * from './render-values-from-seed.js';
export * from './secret-data.js';
export * from './shoot-kubeconfig.js';
export * from './ssh-keys.js';
