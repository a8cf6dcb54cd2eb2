/** `-o text|yaml|json`: the same plan for people, for YAML tools and for JSON tools. */
import { stringifyYaml } from '../../api/index.js';
import { formatPlanText } from './format-text.js';
import type { PlanView } from './view.js';

export const PLAN_FORMATS = ['text', 'yaml', 'json'] as const;
export type PlanFormat = (typeof PLAN_FORMATS)[number];

export function formatPlan(view: PlanView, format: PlanFormat): string {
  switch (format) {
    case 'text':
      return formatPlanText(view);
    case 'yaml':
      return stringifyYaml(view);
    case 'json':
      return `${JSON.stringify(view, null, 2)}\n`;
  }
}

/** `--exit-code`: exit 3 when anything changes, the habit of `git diff --exit-code`. */
export const EXIT_CHANGES = 3;

export function anyChange(view: PlanView): boolean {
  return view.pools.some((p) => p.changed);
}
