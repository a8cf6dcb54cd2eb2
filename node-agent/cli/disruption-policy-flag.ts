/**
 * `--disruption-policy defaults|none|FILE` of `run`, `apply` and `plan` (docs/least-disruption.md):
 * least disruption is on by default. Without the flag the agent takes the policy at
 * /var/lib/gardener-node-agent/disruption-policy.yaml under its root when that file exists, else
 * the built-in rules (`defaults`); `none` restarts every changed unit, exactly as upstream
 * (docs/compatibility.md N33).
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
  NO_POLICY,
} from '../planner/disruption-policy.js';
import { decodeDisruptionPolicy } from '../planner/disruption-policy-decode.js';
import { readDocument } from './read-osc.js';

export const DISRUPTION_POLICY_PATH = '/var/lib/gardener-node-agent/disruption-policy.yaml';

export function disruptionPolicyOption(): Option {
  return new Option(DISRUPTION_POLICY_FLAG, DISRUPTION_POLICY_FLAG_HELP);
}

/** The flag's policy; undefined: `none`, no policy at all. Without the flag: the built-in rules. */
export function disruptionPolicyFrom(
  source: string | undefined,
  readStdin?: () => string,
): DisruptionPolicy | undefined {
  if (source === NO_POLICY) return undefined;
  if (source === undefined || source === DEFAULTS_ONLY) return EMPTY_POLICY;
  const text = readDocument('--disruption-policy', source, readStdin);
  try {
    return decodeDisruptionPolicy(parseYaml(text));
  } catch (e) {
    if (e instanceof ValidationError) throw new UsageError(`--disruption-policy ${source}: ${e.message}`);
    throw new UsageError(`--disruption-policy ${source}: ${(e as Error).message}`);
  }
}

/** `run`, `apply` and `plan --root`: the flag, else the policy file on the node, else the built-in rules. */
export function agentDisruptionPolicy(
  source: string | undefined,
  root: string,
  readStdin?: () => string,
): DisruptionPolicy | undefined {
  if (source !== undefined) return disruptionPolicyFrom(source, readStdin);
  const onNode = join(root, DISRUPTION_POLICY_PATH);
  return disruptionPolicyFrom(existsSync(onNode) ? onNode : undefined);
}
