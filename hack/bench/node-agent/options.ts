/** The node agent benchmark's command line. */
import { NODE_AGENT_IDENTITY, parseGoDuration } from '../../../api/index.js';
import { benchCommandLine } from '../support/command-line.js';

const { values: flags, quick } = benchCommandLine({
  script: 'hack/bench/node-agent.ts',
  duration:
    'About 20 to 25 minutes at the defaults (the 10m window, 200 updates and 100 more of the v1.150.0 pool with --identity node, 5,000 Nodes and Secrets); --quick (3 updates per phase, 10 Nodes and Secrets, a 5s window) about a minute.',
  options: {
    identity: { type: 'string', default: NODE_AGENT_IDENTITY.node },
    window: { type: 'string', default: '10m', quick: '5s' },
    updates: { type: 'string', default: '100', quick: '3' },
    settle: { type: 'string', default: '30s', quick: '1s' },
    'apply-settle': { type: 'string', default: '1s' },
    nodes: { type: 'string', default: '5000', quick: '10' },
    secrets: { type: 'string', default: '5000', quick: '10' },
    concurrency: { type: 'string', default: '32' },
    agent: { type: 'string', default: 'bundle' },
    'node-flags': { type: 'string', default: '' },
  },
});
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
  quick,
  /** How the agent authenticates: its own client certificate (`node`) or the v1.91 ServiceAccount. */
  identity: flags.identity,
  window: flags.window,
  settle: flags.settle,
  windowMs: durationMs('window', flags.window),
  settleMs: durationMs('settle', flags.settle),
  /**
   * The agent's `--apply-settle-time`: how long after an apply it judges the restarted units. The
   * next update waits for that verdict, so the default is shorter than the agent's (10s).
   */
  applySettle: flags['apply-settle'],
  applySettleMs: durationMs('apply-settle', flags['apply-settle']),
  updates: positiveInt('updates', flags.updates),
  nodes: positiveInt('nodes', flags.nodes),
  secrets: positiveInt('secrets', flags.secrets),
  concurrency: Math.max(1, positiveInt('concurrency', flags.concurrency)),
  agentMode: flags.agent,
  /** Extra flags for the agent's node (only the agent's), e.g. `--max-semi-space-size=1`. */
  nodeFlags: flags['node-flags'].split(/\s+/).filter(Boolean),
} as const;
if (OPTIONS.agentMode !== 'bundle' && OPTIONS.agentMode !== 'tsx' && OPTIONS.agentMode !== 'executable')
  throw new Error('--agent must be bundle, tsx or executable');
if (OPTIONS.agentMode === 'executable' && OPTIONS.nodeFlags.length > 0)
  throw new Error('--node-flags: a single executable takes no node flags on its command line');
if (OPTIONS.identity !== NODE_AGENT_IDENTITY.node && OPTIONS.identity !== NODE_AGENT_IDENTITY.serviceAccount)
  throw new Error(`--identity must be ${NODE_AGENT_IDENTITY.node} or ${NODE_AGENT_IDENTITY.serviceAccount}`);
if (OPTIONS.windowMs < 1000) throw new Error('--window must be at least 1s');
