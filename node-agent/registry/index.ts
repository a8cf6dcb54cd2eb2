/** Files from container images: ctr on nodes, a plain directory for tests and demos. */
export * from './ctr-extractor.js';
export * from './directory-extractor.js';
export * from './image-extractor.js';
