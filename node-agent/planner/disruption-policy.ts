/**
 * The disruption policy: which action a changed file or a unit's changed files take, overriding the
 * defaults (defaults.ts). It is ours and travels beside the contract objects, never in them: the
 * agent reads it from `--disruption-policy` (a YAML file on the node), the plan commands take the
 * same flag, so the OSC and the NodeAgentConfiguration keep their exact bytes
 * (docs/compatibility.md N29, docs/least-disruption.md).
 */
import type { DisruptionAction } from './disruption-action.js';
import type { DriftRule } from './drift-policy.js';

export const DISRUPTION_POLICY_API_VERSION = 'node-configuration.gardener.cloud/v1alpha1';
export const DISRUPTION_POLICY_KIND = 'DisruptionPolicy';

/** A changed file matching `path` takes `action` on `units` (default: the units listing it in filePaths). */
export interface PathRule {
  /** Absolute; `*` matches within one path segment, a trailing `/**` everything below. */
  readonly path: string;
  readonly action: DisruptionAction;
  readonly units?: readonly string[];
  /** Shown in `plan` after the action. */
  readonly reason?: string;
}

/** Changes of the files a unit lists in filePaths take `action` on it (its own unit file never does). */
export interface UnitRule {
  readonly unit: string;
  readonly action: DisruptionAction;
  readonly reason?: string;
}

export interface DisruptionPolicy {
  readonly paths: readonly PathRule[];
  readonly units: readonly UnitRule[];
  /** What the agent does with drift, first match wins (drift-policy.ts); absent: the defaults. */
  readonly drift?: readonly DriftRule[];
}

export const EMPTY_POLICY: DisruptionPolicy = { paths: [], units: [] };

/** The value of `--disruption-policy` that means the built-in rules alone: the default. */
export const DEFAULTS_ONLY = 'defaults';

/**
 * The value of `--disruption-policy` that means no policy: every unit whose content changed
 * restarts, exactly as upstream's agent does (docs/compatibility.md N33).
 */
export const NO_POLICY = 'none';

/** `--disruption-policy` of both CLIs' `plan` and of the agent's `run` and `apply`. */
export const DISRUPTION_POLICY_FLAG = '--disruption-policy <defaults|none|file>';
export const DISRUPTION_POLICY_FLAG_HELP =
  'least disruption (docs/least-disruption.md): "defaults" for the built-in rules (the default), a DisruptionPolicy file whose rules come first, or "none" to restart every changed unit, exactly as upstream';

function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (glob.startsWith('/**', i) && i + 3 === glob.length) {
      source += '/.+';
      break;
    }
    if (c === '*') source += '[^/]*';
    else source += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

export function pathMatches(rulePath: string, path: string): boolean {
  return rulePath.includes('*') ? globToRegExp(rulePath).test(path) : rulePath === path;
}
