/** os-local: the reference rendering of an OperatingSystemConfig into user data, for OS-extension authors. */
export * from './secret-refs.js';
export * from './status.js';
export * from './user-data.js';
