/**
 * Builds `dist/gardener-node-agent`, the node agent as a Node 20 single executable application
 * (`npm run build:node-agent`; hack/single-executable.ts does the work): node-agent/bin.ts and what
 * it imports (api/ and runtime/ only), cached by source hash under
 * `$XDG_CACHE_HOME/gardener-osc/node-agent-sea/`.
 */
import { join, resolve } from 'node:path';
import {
  type BuildOptions,
  type BuildResult,
  type BundledPackages,
  buildExecutable,
  bundleExecutable,
  type ExecutableSpec,
} from './single-executable.js';

export {
  type BuildOptions,
  type BuildResult,
  type BundledPackages,
  CACHE_ENTRIES_KEPT,
  defaultCacheDir,
  OPTIONAL_NATIVE_MODULES,
  POSTJECT_VERSION,
  SEA_RESOURCE_NAME,
  SEA_SENTINEL_FUSE,
} from './single-executable.js';

const ROOT = resolve(import.meta.dirname, '..');

export const BINARY_NAME = 'gardener-node-agent';
export const ENTRY = join(ROOT, 'node-agent/bin.ts');

export const NODE_AGENT: ExecutableSpec = {
  name: BINARY_NAME,
  entry: ENTRY,
  // node-agent imports only api/ and runtime/
  sourceDirs: ['node-agent', 'api', 'runtime'],
  cacheName: 'node-agent-sea',
};

export function buildNodeAgent(options: BuildOptions = {}): Promise<BuildResult> {
  return buildExecutable(NODE_AGENT, options);
}

export function bundleNodeAgent(outfile: string): Promise<BundledPackages> {
  return bundleExecutable(NODE_AGENT, outfile);
}

/**
 * The agent with the test doubles of hack/node-agent-doubles (`--systemd record:FILE`, ...), for
 * the demo and the benchmarks, which run it on simulated nodes; never what a node runs.
 */
export const NODE_AGENT_WITH_DOUBLES: ExecutableSpec = {
  name: BINARY_NAME,
  entry: join(ROOT, 'hack/node-agent-doubles/bin.ts'),
  sourceDirs: [...NODE_AGENT.sourceDirs, 'hack/node-agent-doubles'],
  cacheName: 'node-agent-doubles-sea',
};

export function bundleNodeAgentWithDoubles(outfile: string): Promise<BundledPackages> {
  return bundleExecutable(NODE_AGENT_WITH_DOUBLES, outfile);
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  buildNodeAgent({ log: (line) => console.log(line) }).catch((e: Error) => {
    console.error(`build-node-agent: ${e.message}`);
    process.exitCode = 1;
  });
}
