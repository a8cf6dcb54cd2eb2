/**
 * The Plan: everything one apply must do to move a node from the last applied OSC to the next one.
 * It is data (printed by `plan`, persisted by the applier before it runs), so it holds the file
 * and unit contents it writes and no references to anything else.
 */
import type { OscDropIn, OscFile } from '../../api/index.js';
import type { UnitDisruption } from './decide-disruption.js';

/**
 * What happens to a unit after daemon-reload. `start` in an OSC means restart (v1.111); `reload`
 * only comes from the least-disruption decision (docs/least-disruption.md).
 */
export type UnitCommandAction = 'restart' | 'stop' | 'reload';

export interface PlannedCommand {
  readonly unit: string;
  readonly command: UnitCommandAction;
  /**
   * Only when systemd knows the unit: restarting an OS unit whose drop-ins were removed must not
   * fail when the OS does not ship that unit.
   */
  readonly ifUnitExists?: boolean;
  /**
   * DrainAndRestart (least disruption): the node is cordoned and its pods evicted before the unit
   * commands, and it is uncordoned once Ready after them.
   */
  readonly drain?: boolean;
}

export interface PlannedDropIns {
  /** Drop-ins to write to `/etc/systemd/system/<unit>.d/<name>` (0600), in order. */
  readonly write: readonly OscDropIn[];
  /** Names of drop-ins to remove from that directory. */
  readonly delete: readonly string[];
  /**
   * The unit has no drop-ins at all: the whole `.d` directory is removed (gardener v1.91.4
   * pkg/nodeagent/controller/operatingsystemconfig/reconciler.go).
   */
  readonly removeDirectory: boolean;
}

export interface PlannedUnitWrite {
  readonly name: string;
  /** Written to `/etc/systemd/system/<name>` (0600) when set; a unit without content is the OS's. */
  readonly content?: string;
  readonly dropIns: PlannedDropIns;
}

export interface PlannedUnitRemoval {
  readonly name: string;
  /**
   * The unit had content, so the agent created it: it is disabled, stopped, its unit file and its
   * drop-in directory removed. Otherwise it is an OS unit the agent only customised: only the
   * drop-ins below are removed (the directory only when it ends up empty) and it is restarted.
   */
  readonly ownedByAgent: boolean;
  /** Drop-in names to remove when the unit is not owned by the agent. */
  readonly dropIns: readonly string[];
}

export interface Plan {
  readonly files: {
    /** Files to write, in OSC order. */
    readonly write: readonly OscFile[];
    /** Paths to remove, after the unit commands. */
    readonly delete: readonly string[];
  };
  readonly units: {
    /** Changed units, in merged order (spec units, then extension units). */
    readonly write: readonly PlannedUnitWrite[];
    readonly delete: readonly PlannedUnitRemoval[];
  };
  readonly enable: readonly string[];
  readonly disable: readonly string[];
  readonly daemonReload: boolean;
  /** `gardener-node-agent.service` changed: the agent restarts itself before any unit command. */
  readonly mustRestartNodeAgent: boolean;
  /** Unit commands after daemon-reload, in order. */
  readonly commands: readonly PlannedCommand[];
  /**
   * The least-disruption decision behind `commands`, per unit, when the plan was made with a
   * disruption policy (decide-disruption.ts); absent in a plan made as upstream makes it.
   */
  readonly disruption?: readonly UnitDisruption[];
}

export function isEmptyPlan(plan: Plan): boolean {
  return (
    plan.files.write.length === 0 &&
    plan.files.delete.length === 0 &&
    plan.units.write.length === 0 &&
    plan.units.delete.length === 0 &&
    plan.enable.length === 0 &&
    plan.disable.length === 0 &&
    !plan.daemonReload &&
    !plan.mustRestartNodeAgent &&
    plan.commands.length === 0
  );
}
