/**
 * `--disruption-policy FILE|defaults` of `run`, `apply` and `plan` (docs/least-disruption.md):
 * least disruption with the built-in rules (`defaults`) or with a policy file's rules before them.
 * Without the flag the agent restarts every changed unit, as upstream (`run` also takes the policy
 * at /var/lib/gardener-node-agent/disruption-policy.yaml under its root when that file exists).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Option } from 'commander';
import { parseYaml, ValidationError } from '../../api/index.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import {
  DEFAULTS_ONLY,
  DISRUPTION_POLICY_FLAG,
  DISRUPTION_POLICY_FLAG_HELP,
  type DisruptionPolicy,
  EMPTY_POLICY,
} from '../planner/disruption-policy.js';
import { decodeDisruptionPolicy } from '../planner/disruption-policy-decode.js';
import { readDocument } from './read-osc.js';

export const DISRUPTION_POLICY_PATH = '/var/lib/gardener-node-agent/disruption-policy.yaml';

export function disruptionPolicyOption(): Option {
  return new Option(DISRUPTION_POLICY_FLAG, DISRUPTION_POLICY_FLAG_HELP);
}

export function disruptionPolicyFrom(
  source: string | undefined,
  readStdin?: () => string,
): DisruptionPolicy | undefined {
  if (source === undefined) return undefined;
  if (source === DEFAULTS_ONLY) return EMPTY_POLICY;
  const text = readDocument('--disruption-policy', source, readStdin);
  try {
    return decodeDisruptionPolicy(parseYaml(text));
  } catch (e) {
    if (e instanceof ValidationError) throw new UsageError(`--disruption-policy ${source}: ${e.message}`);
    throw new UsageError(`--disruption-policy ${source}: ${(e as Error).message}`);
  }
}

/** `run`: the flag, else the policy file on the node when there is one. */
export function agentDisruptionPolicy(
  source: string | undefined,
  root: string,
): DisruptionPolicy | undefined {
  if (source !== undefined) return disruptionPolicyFrom(source);
  const onNode = join(root, DISRUPTION_POLICY_PATH);
  return existsSync(onNode) ? disruptionPolicyFrom(onNode) : undefined;
}
