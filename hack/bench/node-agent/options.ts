/** The node agent benchmark's command line. */
import { parseArgs } from 'node:util';
import { parseGoDuration } from '../../../api/index.js';

const { values: flags } = parseArgs({
  options: {
    window: { type: 'string', default: '10m' },
    updates: { type: 'string', default: '100' },
    settle: { type: 'string', default: '30s' },
    nodes: { type: 'string', default: '5000' },
    secrets: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '32' },
    agent: { type: 'string', default: 'bundle' },
    'node-flags': { type: 'string', default: '' },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(
    'usage: npx tsx hack/bench/node-agent.ts [--window 10m] [--updates 100] [--settle 30s] ' +
      '[--nodes 5000] [--secrets 5000] [--concurrency 32] [--agent bundle|tsx] [--node-flags="--v8-flag ..."]',
  );
  process.exit(0);
}
function positiveInt(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, not ${text}`);
  return n;
}
const durationMs = (name: string, text: string) => {
  try {
    return parseGoDuration(text) / 1e6;
  } catch (e) {
    throw new Error(`--${name}: ${(e as Error).message}`);
  }
};

export const OPTIONS = {
  window: flags.window,
  settle: flags.settle,
  windowMs: durationMs('window', flags.window),
  settleMs: durationMs('settle', flags.settle),
  updates: positiveInt('updates', flags.updates),
  nodes: positiveInt('nodes', flags.nodes),
  secrets: positiveInt('secrets', flags.secrets),
  concurrency: Math.max(1, positiveInt('concurrency', flags.concurrency)),
  agentMode: flags.agent,
  /** Extra flags for the agent's node (only the agent's), e.g. `--max-semi-space-size=1`. */
  nodeFlags: flags['node-flags'].split(/\s+/).filter(Boolean),
} as const;
if (OPTIONS.agentMode !== 'bundle' && OPTIONS.agentMode !== 'tsx')
  throw new Error('--agent must be bundle or tsx');
if (OPTIONS.windowMs < 1000) throw new Error('--window must be at least 1s');
