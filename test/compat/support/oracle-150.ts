/**
 * The gardener-oracle-150 (hack/gardener-oracle-150): Gardener v1.150.0's own code as a long-lived
 * child process with the v1.91.4 oracle's protocol (see json-lines-oracle.ts). One process serves
 * the whole mocha run. Its ops: hack/gardener-oracle-150/ops.go.
 */
import { resolve } from 'node:path';
import { type JsonLinesOracle, SharedOracle } from './json-lines-oracle.js';

export { ORACLE_BUILD_TIMEOUT_MS, OracleError } from './json-lines-oracle.js';
export type Oracle150 = JsonLinesOracle;

const shared = new SharedOracle({
  script: resolve(import.meta.dirname, '../../../hack/gardener-oracle-150/build.sh'),
  binary: 'gardener-oracle-150',
});

/** The run's v1.150.0 oracle, built and started on first use. */
export const oracle150 = (): Oracle150 => shared.get();

export const stopOracle150 = (): Promise<void> => shared.stop();
