/**
 * An RBAC rule with the reason it exists. Every rule without `resourceNames` must say why it
 * cannot be narrowed to names; the reasons are rendered as an annotation next to the rules, so a
 * reviewer reads them in the golden file and in the cluster.
 */
export interface ExplainedRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly reason: string;
}

export const RULE_REASONS_ANNOTATION = 'node-configuration.gardener.cloud/rule-reasons';

export function rbacRules(rules: readonly ExplainedRule[]) {
  return rules.map(({ reason: _, ...rule }) => ({
    apiGroups: [...rule.apiGroups],
    resources: [...rule.resources],
    ...(rule.resourceNames ? { resourceNames: [...rule.resourceNames] } : {}),
    verbs: [...rule.verbs],
  }));
}

/** One line per rule, in rule order: `<index>: <group>/<resources> [<verbs>]: <reason>`. */
export function ruleReasons(rules: readonly ExplainedRule[]): string {
  return rules
    .map(
      (r, i) =>
        `${i}: ${r.apiGroups.map((g) => g || 'core').join(',')}/${r.resources.join(',')} [${r.verbs.join(',')}]: ${r.reason}`,
    )
    .join('\n');
}
