/**
 * After an apply the agent waits a settle time, then judges it: every unit the apply restarted
 * must be running or have run to success (a oneshot, or a service a timer runs, such as
 * containerd-logrotate.service, which has no Type=oneshot), the node's health checks (kubelet
 * /healthz, containerd) must pass, and what runs must be what was rendered (in-effect/). The
 * verdict is what the agent reports on its Node; a unit that failed says why in its own words.
 */
import { APPLY_REASON, type OperatingSystemConfig } from '../../../api/index.js';
import { type Clock, realClock, sleep } from '../../../runtime/clock.js';
import { HostRoot } from '../../applier/host-root.js';
import { exitedCleanly, notRunning } from '../../applier/unit-not-running.js';
import type { Plan } from '../../planner/plan.js';
import type { Systemd } from '../../systemd/systemd.js';
import type { UnitStatus } from '../../systemd/unit-status.js';
import { type InEffectCheck, mismatchText } from './in-effect/in-effect-check.js';
import type { UnitReason } from './in-effect/unit-journal-reason.js';

/** A health check run once after the settle time; rejects with why it failed. */
export interface VerifyProbe {
  readonly name: string;
  readonly check: (signal: AbortSignal) => Promise<void>;
}

export type Verdict =
  | { readonly ok: true; readonly message: string }
  | { readonly ok: false; readonly reason: string; readonly message: string };

const RUNNING = new Set(['active', 'reloading']);

/** Why a unit restarted settle time ago is not as it should be, or undefined when it is. Pure. */
export function unitProblem(unit: string, status: UnitStatus): string | undefined {
  if (RUNNING.has(status.activeState)) return undefined;
  // ended by itself as it should, judged as drift detection judges it (applier/unit-not-running.ts):
  // a oneshot, a script run to exit 0 (a timer's containerd-logrotate.service, no Type=oneshot),
  // a finished unit systemd unloaded (gardener-user.service: the apply started it, so no run on
  // record means it ended without failing); a unit somebody stopped was killed, so it counts
  if (status.activeState === 'inactive' && !notRunning(status)) return undefined;
  // between two runs of a Restart=always unit whose last run exited 0 (sshd-ensurer.service);
  // a crash loop's result is exit-code or signal
  if (status.subState === 'auto-restart' && exitedCleanly(status)) return undefined;
  return `${unit} is ${status.activeState} (${status.subState})`;
}

/** The units a plan restarts, without the ones an absent OS unit skipped. */
export async function restartedUnits(plan: Plan, root: string): Promise<string[]> {
  const host = new HostRoot(root);
  const units: string[] = [];
  for (const c of plan.commands) {
    if (c.command !== 'restart') continue;
    if (c.ifUnitExists && !(await host.unitExists(c.unit))) continue;
    units.push(c.unit);
  }
  return units;
}

export interface VerifyOptions {
  readonly units: readonly string[];
  readonly systemd: Pick<Systemd, 'unitStatus'>;
  readonly probes: readonly VerifyProbe[];
  readonly settleMs: number;
  readonly signal: AbortSignal;
  readonly clock?: Clock;
  /** What runs against what the OSC renders, once units and health checks pass. */
  readonly inEffect?: { readonly osc: OperatingSystemConfig; readonly checks: readonly InEffectCheck[] };
  /** The last error a unit logged (its journal), added to the report of a unit or probe that failed. */
  readonly unitReason?: UnitReason;
}

/** `; kubelet.service: <its last error>` for the units that failed and said why. */
async function reasons(units: readonly string[], unitReason: UnitReason | undefined): Promise<string> {
  if (!unitReason) return '';
  const said = await Promise.all(
    units.map(async (u) => [u, await unitReason(u).catch(() => undefined)] as const),
  );
  return said.flatMap(([u, why]) => (why ? [`; ${u}: ${why}`] : [])).join('');
}

export async function verifyApply(o: VerifyOptions): Promise<Verdict> {
  if (o.settleMs > 0) await sleep(o.clock ?? realClock, o.settleMs, o.signal);
  const seconds = `${Math.round(o.settleMs / 100) / 10}s`;
  const problems: string[] = [];
  const failedUnits: string[] = [];
  for (const unit of o.units) {
    const problem = unitProblem(unit, await o.systemd.unitStatus(unit));
    if (problem) {
      problems.push(problem);
      failedUnits.push(unit);
    }
  }
  if (problems.length > 0)
    return {
      ok: false,
      reason: APPLY_REASON.unitNotActive,
      message: `${problems.join('; ')}, ${seconds} after the apply restarted it${await reasons(failedUnits, o.unitReason)}`,
    };
  const failed = await Promise.allSettled(o.probes.map((p) => p.check(o.signal)));
  const health = failed.flatMap((r, i) =>
    r.status === 'rejected' ? [`${o.probes[i]!.name}: ${(r.reason as Error)?.message ?? r.reason}`] : [],
  );
  if (health.length > 0) {
    // a probe of a unit the apply restarted (kubelet → kubelet.service) says why that unit failed
    const probed = o.units.filter((u) =>
      failed.some((r, i) => r.status === 'rejected' && u === `${o.probes[i]!.name}.service`),
    );
    return {
      ok: false,
      reason: APPLY_REASON.healthCheckFailed,
      message: `health check failed ${seconds} after the apply: ${health.join('; ')}${await reasons(probed, o.unitReason)}`,
    };
  }
  const notInEffect = await inEffectProblems(o);
  if (notInEffect.length > 0)
    return {
      ok: false,
      reason: APPLY_REASON.notInEffect,
      message: `not in effect ${seconds} after the apply: ${notInEffect.join('; ')}`,
    };
  return {
    ok: true,
    message:
      o.units.length > 0
        ? `applied; ${o.units.length} restarted unit(s) active after ${seconds}`
        : 'applied; no unit restarted',
  };
}

/** What the in-effect checks found: each differing field, or why a check could not ask. */
async function inEffectProblems(o: VerifyOptions): Promise<string[]> {
  if (!o.inEffect) return [];
  const { osc, checks } = o.inEffect;
  const results = await Promise.allSettled(checks.map((c) => c.check(osc, o.signal)));
  return results.flatMap((r, i) => {
    const name = checks[i]!.name;
    if (r.status === 'rejected') return [`${name}: ${(r.reason as Error)?.message ?? r.reason}`];
    return r.value.map((m) => mismatchText(name, m));
  });
}
