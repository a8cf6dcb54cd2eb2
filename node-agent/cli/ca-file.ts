/**
 * The v1.150.0 contract names the API server's CA bundle by path (`apiServer.caFile`, shipped by
 * the OSC as /var/lib/gardener-node-agent/cluster-ca.crt; gardener v1.150.0
 * cmd/gardener-node-agent/app/app.go) instead of carrying it inline (`caBundle`, v1.91.4). The
 * agent reads it once at start, under its root, into the inline form the rest of the agent uses;
 * a new bundle arrives with a new OSC, whose apply restarts the agent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeAgentConfiguration } from '../../api/index.js';
import { isSystemError, systemErrorReason } from '../../runtime/cli/system-error.js';

export function withCaFileRead(config: NodeAgentConfiguration, root: string): NodeAgentConfiguration {
  const { caBundle, caFile } = config.apiServer;
  if (caBundle || !caFile) return config;
  let pem: Buffer;
  try {
    pem = readFileSync(join(root, caFile));
  } catch (e) {
    const why = isSystemError(e) ? systemErrorReason(e) : (e as Error).message;
    throw new Error(`cannot read apiServer.caFile ${caFile}: ${why}`);
  }
  return { ...config, apiServer: { ...config.apiServer, caBundle: pem.toString('base64') } };
}
