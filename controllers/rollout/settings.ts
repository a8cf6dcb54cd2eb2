/**
 * The rollout settings of one shoot: the controller-manager's `controllers.rollout`, each field
 * overridable by an annotation on the Cluster (`rollout.node-configuration.gardener.cloud/<field>`).
 * An override that does not parse is left out and named in a problem (a Warning event), so a typo
 * never turns the gate off. Pure.
 */
import * as z from 'zod';
import { ROLLOUT_CLUSTER_ANNOTATION } from '../../api/index.js';
import {
  gateSwitch,
  goDuration,
  type NodeCount,
  nodeCount,
  type RolloutSettings,
  RolloutSettingsSchema,
} from '../../seed/manager/config.js';

export interface EffectiveSettings {
  readonly settings: RolloutSettings;
  /** One line per rejected override, naming the annotation. */
  readonly problems: readonly string[];
}

const wholeNumber = (least: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, 'a whole number')
    .transform(Number)
    .pipe(z.number().int().min(least));

/** How an annotation's text parses into the field it overrides. */
const OVERRIDES: {
  readonly [K in keyof typeof ROLLOUT_CLUSTER_ANNOTATION]?: [keyof RolloutSettings, z.ZodType];
} = {
  gate: ['gate', gateSwitch],
  canary: ['canary', wholeNumber(1)],
  growth: [
    'growth',
    z
      .string()
      .regex(/^[0-9]+(\.[0-9]+)?$/, 'a number')
      .transform(Number)
      .pipe(RolloutSettingsSchema.shape.growth.unwrap()),
  ],
  maxPerWave: [
    'maxPerWave',
    z.string().transform((text, ctx) => {
      const parsed = nodeCount.safeParse(/^[0-9]+$/.test(text) ? Number(text) : text);
      if (!parsed.success) {
        ctx.addIssue({ code: 'custom', message: 'a number of nodes, or a percentage from 1% to 100%' });
        return z.NEVER;
      }
      return parsed.data;
    }),
  ],
  settleTime: ['settleTime', goDuration],
  failuresTolerated: ['failuresTolerated', wholeNumber(0)],
  waveTimeout: ['waveTimeout', goDuration],
  stalledNodes: ['stalledNodes', RolloutSettingsSchema.shape.stalledNodes.unwrap()],
};

export function effectiveSettings(
  base: RolloutSettings,
  annotations: Readonly<Record<string, string>> | undefined,
): EffectiveSettings {
  const settings: Record<string, unknown> = { ...base };
  const problems: string[] = [];
  for (const [key, entry] of Object.entries(OVERRIDES)) {
    const annotation = ROLLOUT_CLUSTER_ANNOTATION[key as keyof typeof ROLLOUT_CLUSTER_ANNOTATION];
    const text = annotations?.[annotation];
    if (text === undefined || !entry) continue;
    const [field, schema] = entry;
    const parsed = schema.safeParse(text);
    if (parsed.success) settings[field] = parsed.data;
    else
      problems.push(
        `${annotation}: ${JSON.stringify(text)} is not ${parsed.error.issues[0]?.message ?? 'valid'}`,
      );
  }
  return { settings: settings as RolloutSettings, problems };
}

/** The most nodes a wave of a pool of `poolSize` may hold. */
export function maxPerWave(count: NodeCount, poolSize: number): number {
  return typeof count === 'number' ? count : Math.max(1, Math.ceil((count.percent * poolSize) / 100));
}

export type RolloutAction = 'resume' | 'unguarded';

export interface ActionRequest {
  readonly action: RolloutAction;
  /** The pools it is for; undefined: every pool. */
  readonly pools?: readonly string[];
  /** The annotation's text, to remove exactly it. */
  readonly text: string;
}

/** The operator's action on the Cluster (`resume`, `unguarded`, optionally `:pool,pool`). */
export function actionRequest(
  annotations: Readonly<Record<string, string>> | undefined,
): ActionRequest | { readonly problem: string; readonly text: string } | undefined {
  const text = annotations?.[ROLLOUT_CLUSTER_ANNOTATION.action];
  if (text === undefined) return undefined;
  const m = /^(resume|unguarded)(?::([a-z0-9][-a-z0-9]*(?:,[a-z0-9][-a-z0-9]*)*))?$/.exec(text.trim());
  if (!m)
    return {
      problem: `${ROLLOUT_CLUSTER_ANNOTATION.action}: ${JSON.stringify(text)} is not "resume" or "unguarded", optionally followed by ":pool,pool"`,
      text,
    };
  return { action: m[1] as RolloutAction, ...(m[2] ? { pools: m[2].split(',') } : {}), text };
}
