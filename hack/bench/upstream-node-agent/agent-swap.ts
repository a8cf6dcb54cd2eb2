/**
 * Upstream's agent in place of ours, as a node whose agent binary is replaced keeps everything
 * else: the binary copied over /opt/bin/gardener-node-agent, the rendered unit's command line (no
 * flags of ours), and what ours left on the node — the configuration (`config.yaml` of v1.91.4,
 * `config-v1.150.0.yaml` of v1.150.0), the credentials (the shared token of v1.91.4; v1.150.0's
 * per-node `credentials/kubeconfig`, which upstream's v1.150.0 agent uses when it exists: gardener
 * v1.150.0 cmd/gardener-node-agent/app/app.go, getRESTConfigNodeAgentAuthorizer) and
 * `last-applied-osc.yaml`. The caller restarts the agent.
 */
import { copyFileSync } from 'node:fs';
import { setAgentFlags } from '../../real-node/agent-flags.js';
import type { Container } from '../../real-node/container.js';

export const AGENT_BINARY = '/opt/bin/gardener-node-agent';

export async function installUpstreamAgent(
  c: Container,
  renderedUnit: string,
  binary: string,
): Promise<void> {
  await setAgentFlags(c, renderedUnit, []);
  copyFileSync(binary, c.path('/var/tmp/gardener-node-agent-upstream'));
  await c.run(['install', '-m', '0755', '/var/tmp/gardener-node-agent-upstream', AGENT_BINARY]);
}
