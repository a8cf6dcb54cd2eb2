/**
 * The files and units of a plan by path and name, built once per apply: a step looks up what it
 * writes in constant time (a search of the plan per step made an apply of N files O(N²)).
 */
import type { OscFile } from '../../api/index.js';
import type { Plan, PlannedUnitWrite } from '../planner/plan.js';

export interface PlanIndex {
  readonly files: ReadonlyMap<string, OscFile>;
  readonly units: ReadonlyMap<string, PlannedUnitWrite>;
}

const indexes = new WeakMap<Plan, PlanIndex>();

export function planIndex(plan: Plan): PlanIndex {
  let index = indexes.get(plan);
  if (!index) {
    index = {
      files: new Map(plan.files.write.map((f) => [f.path, f])),
      units: new Map(plan.units.write.map((u) => [u.name, u])),
    };
    indexes.set(plan, index);
  }
  return index;
}
