/** A suite's `before`: builds (once per machine) and starts the v1.150.0 oracle; a cold build takes minutes. */
import { ORACLE_BUILD_TIMEOUT_MS, oracle150 } from './oracle-150.js';

export function useOracle150(): void {
  before(function () {
    this.timeout(ORACLE_BUILD_TIMEOUT_MS);
    oracle150();
  });
}
