/** Upstream's gardener-node-agent v1.150.0, built from its Go module by build.sh, once per machine. */
import { resolve } from 'node:path';
import { type UpstreamNodeAgent, upstreamNodeAgentBuiltBy } from '../upstream-node-agent/cache.js';

/** Builds it when the cache lacks it (minutes cold; progress on this process's stderr). */
export function upstreamNodeAgentV150(): UpstreamNodeAgent {
  return upstreamNodeAgentBuiltBy(resolve(import.meta.dirname, 'build.sh'));
}
