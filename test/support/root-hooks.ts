/** Root hooks of every mocha run: servers started by integration suites stop when the run ends. */
import { stopAllEnvtests } from '../integration/envtest.js';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await stopAllEnvtests();
  },
};
