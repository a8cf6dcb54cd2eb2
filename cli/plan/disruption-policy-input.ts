/**
 * `gardener-osc plan --disruption-policy defaults|none|FILE`: the policy the agents run with
 * (docs/least-disruption.md). Without the flag: the built-in rules, as agents run by default;
 * `none`: no policy, every changed unit restarts as upstream (docs/compatibility.md N33).
 */
import { Option } from 'commander';
import { ValidationError } from '../../api/index.js';
import {
  DEFAULTS_ONLY,
  DISRUPTION_POLICY_FLAG,
  DISRUPTION_POLICY_FLAG_HELP,
  type DisruptionPolicy,
  EMPTY_POLICY,
  NO_POLICY,
} from '../../node-agent/planner/disruption-policy.js';
import { decodeDisruptionPolicy } from '../../node-agent/planner/disruption-policy-decode.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { parseYamlInput, readInput } from '../render-input.js';

export function disruptionPolicyOption(): Option {
  return new Option(DISRUPTION_POLICY_FLAG, DISRUPTION_POLICY_FLAG_HELP);
}

/** undefined: `none`, no policy at all. */
export function readDisruptionPolicy(
  source: string | undefined,
  readStdin?: () => string,
): DisruptionPolicy | undefined {
  if (source === NO_POLICY) return undefined;
  if (source === undefined || source === DEFAULTS_ONLY) return EMPTY_POLICY;
  const what = `disruption policy ${source}`;
  try {
    return decodeDisruptionPolicy(parseYamlInput(readInput(source, 'disruption policy', readStdin), what));
  } catch (e) {
    if (e instanceof ValidationError) throw new UsageError(`--disruption-policy ${source}: ${e.message}`);
    throw e;
  }
}
