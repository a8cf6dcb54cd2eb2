/** `gardener-osc plan --disruption-policy FILE|defaults`: the policy the agents run with (docs/least-disruption.md). */
import { Option } from 'commander';
import { ValidationError } from '../../api/index.js';
import {
  DEFAULTS_ONLY,
  DISRUPTION_POLICY_FLAG,
  DISRUPTION_POLICY_FLAG_HELP,
  type DisruptionPolicy,
  EMPTY_POLICY,
} from '../../node-agent/planner/disruption-policy.js';
import { decodeDisruptionPolicy } from '../../node-agent/planner/disruption-policy-decode.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { parseYamlInput, readInput } from '../render-input.js';

export function disruptionPolicyOption(): Option {
  return new Option(DISRUPTION_POLICY_FLAG, DISRUPTION_POLICY_FLAG_HELP);
}

export function readDisruptionPolicy(source: string, readStdin?: () => string): DisruptionPolicy {
  if (source === DEFAULTS_ONLY) return EMPTY_POLICY;
  const what = `disruption policy ${source}`;
  try {
    return decodeDisruptionPolicy(parseYamlInput(readInput(source, 'disruption policy', readStdin), what));
  } catch (e) {
    if (e instanceof ValidationError) throw new UsageError(`--disruption-policy ${source}: ${e.message}`);
    throw e;
  }
}
