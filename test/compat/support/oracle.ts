/**
 * The gardener-oracle (hack/gardener-oracle): Gardener v1.91.4's own code as a long-lived child
 * process (see json-lines-oracle.ts). One process serves the whole mocha run.
 */
import { resolve } from 'node:path';
import { type JsonLinesOracle, SharedOracle } from './json-lines-oracle.js';

export { ORACLE_BUILD_TIMEOUT_MS, OracleError } from './json-lines-oracle.js';
export type Oracle = JsonLinesOracle;

const shared = new SharedOracle({
  script: resolve(import.meta.dirname, '../../../hack/gardener-oracle/build.sh'),
  binary: 'gardener-oracle',
});

/** Runs the build script (a no-op when the cache is complete) and returns the binary. */
export const buildOracle = (): string => shared.build();

/** The run's oracle, built and started on first use. */
export const oracle = (): Oracle => shared.get();

export const stopOracle = (): Promise<void> => shared.stop();
