/**
 * Reading a disruption policy (policy.ts) from YAML, validated at the boundary: every problem is
 * reported with the field it is in (`paths[1].action`), and nothing of a bad policy is used.
 *
 *   apiVersion: node-configuration.gardener.cloud/v1alpha1
 *   kind: DisruptionPolicy
 *   paths:
 *   - path: /etc/valitail/config.yaml
 *     action: Reload
 *     units: [valitail.service]
 *     reason: valitail re-reads its config on SIGHUP
 *   units:
 *   - unit: containerd.service
 *     action: Restart
 *   drift:                       # what the agent does with drift (drift-policy.ts)
 *   - path: /etc/ssh/sshd_config
 *     action: Adopt
 *     reason: hardened by the security team's own tooling
 *
 * Reboot is in the ladder (disruption-action.ts) but this agent cannot carry it out; a policy
 * asking for it is refused rather than silently doing less.
 */
import { type FieldError, ValidationError } from '../../api/index.js';
import { DISRUPTION_ACTIONS, type DisruptionAction, isDisruptionAction } from './disruption-action.js';
import {
  DISRUPTION_POLICY_API_VERSION,
  DISRUPTION_POLICY_KIND,
  type DisruptionPolicy,
  type PathRule,
  type UnitRule,
} from './disruption-policy.js';
import { DRIFT_KINDS } from './drift.js';
import { DRIFT_ACTIONS, type DriftRule, isDriftAction } from './drift-policy.js';

const SUPPORTED: readonly DisruptionAction[] = [
  'None',
  'DaemonReload',
  'Reload',
  'Restart',
  'DrainAndRestart',
];
const UNIT_NAME = /^[^/\s\0]+\.(service|socket|timer|mount|path|target|slice|scope|swap|automount|device)$/;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

class Checker {
  readonly errors: FieldError[] = [];

  fail(type: FieldError['type'], field: string, detail: string, value?: unknown): void {
    this.errors.push({ type, field, detail, ...(value === undefined ? {} : { value }) });
  }

  unknownKeys(object: Json, allowed: readonly string[], at: string): void {
    for (const key of Object.keys(object))
      if (!allowed.includes(key))
        this.fail('NotSupported', `${at}${key}`, `supported: ${allowed.join(', ')}`);
  }

  action(value: unknown, field: string): DisruptionAction | undefined {
    if (!isDisruptionAction(value)) {
      this.fail('NotSupported', field, `one of ${DISRUPTION_ACTIONS.join(', ')}`, value);
      return undefined;
    }
    if (!SUPPORTED.includes(value)) {
      this.fail(
        'NotSupported',
        field,
        `this agent carries out ${SUPPORTED.join(', ')}; ${value} not yet`,
        value,
      );
      return undefined;
    }
    return value;
  }

  unit(value: unknown, field: string): string | undefined {
    if (typeof value === 'string' && UNIT_NAME.test(value)) return value;
    this.fail('Invalid', field, 'a systemd unit name with its suffix, e.g. kubelet.service', value);
    return undefined;
  }

  reason(value: unknown, field: string): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value === 'string' && !/[\n\r]/.test(value)) return value;
    this.fail('Invalid', field, 'one line of text', value);
    return undefined;
  }

  list(value: unknown, field: string): unknown[] {
    if (value === undefined) return [];
    if (Array.isArray(value)) return value;
    this.fail('TypeInvalid', field, 'a list');
    return [];
  }
}

function pathRule(c: Checker, raw: unknown, at: string): PathRule | undefined {
  if (!isObject(raw)) return void c.fail('TypeInvalid', at, 'an object with path and action');
  c.unknownKeys(raw, ['path', 'action', 'units', 'reason'], `${at}.`);
  const path = raw.path;
  if (
    typeof path !== 'string' ||
    !path.startsWith('/') ||
    path.includes('\0') ||
    /(^|\/)\.\.?(\/|$)/.test(path)
  )
    c.fail(
      'Invalid',
      `${at}.path`,
      'an absolute path without . or .. segments (* and a trailing /** allowed)',
      path,
    );
  const action = c.action(raw.action, `${at}.action`);
  const units = c.list(raw.units, `${at}.units`).map((u, i) => c.unit(u, `${at}.units[${i}]`));
  const reason = c.reason(raw.reason, `${at}.reason`);
  if (typeof path !== 'string' || !action || units.some((u) => u === undefined)) return undefined;
  return {
    path,
    action,
    ...(raw.units === undefined ? {} : { units: units as string[] }),
    ...(reason === undefined ? {} : { reason }),
  };
}

function unitRule(c: Checker, raw: unknown, at: string): UnitRule | undefined {
  if (!isObject(raw)) return void c.fail('TypeInvalid', at, 'an object with unit and action');
  c.unknownKeys(raw, ['unit', 'action', 'reason'], `${at}.`);
  const unit = c.unit(raw.unit, `${at}.unit`);
  const action = c.action(raw.action, `${at}.action`);
  const reason = c.reason(raw.reason, `${at}.reason`);
  if (!unit || !action) return undefined;
  return { unit, action, ...(reason === undefined ? {} : { reason }) };
}

function driftRule(c: Checker, raw: unknown, at: string): DriftRule | undefined {
  if (!isObject(raw)) return void c.fail('TypeInvalid', at, 'an object with path or unit, and action');
  c.unknownKeys(raw, ['path', 'unit', 'kinds', 'action', 'reason'], `${at}.`);
  if ((raw.path === undefined) === (raw.unit === undefined))
    c.fail('Required', at, 'exactly one of path and unit');
  const path = raw.path;
  if (path !== undefined && (typeof path !== 'string' || !path.startsWith('/') || path.includes('\0')))
    c.fail('Invalid', `${at}.path`, 'an absolute path (* and a trailing /** allowed)', path);
  const unit = raw.unit === undefined ? undefined : c.unit(raw.unit, `${at}.unit`);
  const kinds = c.list(raw.kinds, `${at}.kinds`);
  kinds.forEach((k, i) => {
    if (!(DRIFT_KINDS as readonly unknown[]).includes(k))
      c.fail('NotSupported', `${at}.kinds[${i}]`, `one of ${DRIFT_KINDS.join(', ')}`, k);
  });
  const action = isDriftAction(raw.action) ? raw.action : undefined;
  if (!action) c.fail('NotSupported', `${at}.action`, `one of ${DRIFT_ACTIONS.join(', ')}`, raw.action);
  const reason = c.reason(raw.reason, `${at}.reason`);
  if (!action || (typeof path !== 'string' && unit === undefined)) return undefined;
  return {
    ...(typeof path === 'string' ? { path } : {}),
    ...(unit === undefined ? {} : { unit }),
    ...(raw.kinds === undefined ? {} : { kinds: kinds as DriftRule['kinds'] }),
    action,
    ...(reason === undefined ? {} : { reason }),
  };
}

export function decodeDisruptionPolicy(document: unknown): DisruptionPolicy {
  const c = new Checker();
  if (!isObject(document))
    throw new ValidationError('DisruptionPolicy', [
      { type: 'TypeInvalid', field: '', detail: 'a YAML object' },
    ]);
  c.unknownKeys(document, ['apiVersion', 'kind', 'paths', 'units', 'drift'], '');
  if (document.apiVersion !== DISRUPTION_POLICY_API_VERSION)
    c.fail('NotSupported', 'apiVersion', DISRUPTION_POLICY_API_VERSION, document.apiVersion);
  if (document.kind !== DISRUPTION_POLICY_KIND)
    c.fail('NotSupported', 'kind', DISRUPTION_POLICY_KIND, document.kind);
  const paths = c.list(document.paths, 'paths').map((r, i) => pathRule(c, r, `paths[${i}]`));
  const rawUnits = c.list(document.units, 'units');
  const units = rawUnits.map((r, i) => unitRule(c, r, `units[${i}]`));
  const seen = new Set<unknown>();
  rawUnits.forEach((r, i) => {
    const unit = isObject(r) ? r.unit : undefined;
    if (typeof unit === 'string' && seen.has(unit))
      c.fail('Duplicate', `units[${i}].unit`, 'one rule per unit', unit);
    seen.add(unit);
  });
  const drift = c.list(document.drift, 'drift').map((r, i) => driftRule(c, r, `drift[${i}]`));
  if (c.errors.length > 0) throw new ValidationError('DisruptionPolicy', c.errors);
  return {
    paths: paths as PathRule[],
    units: units as UnitRule[],
    ...(document.drift === undefined ? {} : { drift: drift as DriftRule[] }),
  };
}
