/**
 * A NodeAgentConfiguration whose API server nobody serves, for `run` flag checks that must fail
 * before the agent starts (exit 2, nothing touched).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringifyYaml } from '../../../api/index.js';

/** Writes DIR/config.yaml and returns its path. */
export function writeUnreachableAgentConfig(dir: string): string {
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    stringifyYaml({
      apiVersion: 'nodeagent.config.gardener.cloud/v1alpha1',
      kind: 'NodeAgentConfiguration',
      clientConnection: { kubeconfig: join(dir, 'no-kubeconfig') },
      apiServer: { server: 'https://127.0.0.1:1' },
      controllers: {
        operatingSystemConfig: { secretName: 'osc', kubernetesVersion: '1.30.2' },
        token: {
          syncConfigs: [
            { secretName: 'gardener-node-agent', path: '/var/lib/gardener-node-agent/credentials/token' },
          ],
        },
      },
    }),
  );
  return config;
}
