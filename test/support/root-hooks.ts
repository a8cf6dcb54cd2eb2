/** Root hooks of every mocha run: servers and oracles started by suites stop when the run ends. */
import { stopOracle } from '../compat/support/oracle.js';
import { stopAllEnvtests } from '../integration/envtest.js';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await Promise.all([stopAllEnvtests(), stopOracle()]);
  },
};
