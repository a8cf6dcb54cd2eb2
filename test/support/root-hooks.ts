/** Root hooks of every mocha run: servers and oracles started by suites stop when the run ends. */
import { stopOracle } from '../compat/support/oracle.js';
import { stopOracle150 } from '../compat/support/oracle-150.js';
import { stopAllEnvtests } from '../integration/envtest.js';
import { stopNodeIdentityLandscape } from '../integration/node-identity-landscape.js';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    // the landscape's manager and agents use the envtests: they stop first
    await stopNodeIdentityLandscape();
    await Promise.all([stopAllEnvtests(), stopOracle(), stopOracle150()]);
  },
};
