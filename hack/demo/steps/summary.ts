/**
 * The end of the scenario: what the landscape shows once every step ran (every node's checksum
 * against its pool's, how often the legacy access secret was deleted, the cleanups the
 * controller-manager counted), put together with the steps' outcomes into the ScenarioResult.
 */
import { ANNOTATION, NAME } from '../../../api/index.js';
import { readAuditEvents } from '../../landscape/envtest.js';
import type { NodeResult, ScenarioResult } from '../scenario-result.js';
import type { ScenarioRun } from '../scenario-run.js';
import { poolSecrets } from '../shoot-reads.js';
import type { CompromisedNodeOutcome } from './compromised-node.js';
import type { MigrationOutcome } from './migration.js';
import type { RolloutOutcome } from './rollout.js';

export async function summarize(
  run: ScenarioRun,
  migration: MigrationOutcome,
  rollout: RolloutOutcome,
  limits: CompromisedNodeOutcome,
): Promise<ScenarioResult> {
  run.heading('summary', 'Summary');
  const finalSecrets = await poolSecrets(run.landscape);
  const finalNodes = new Map(
    (await run.landscape.shootCore.listNode()).items.map((n) => [n.metadata?.name ?? '', n]),
  );
  // counted at the very end, long after the cleanup: a repeated cleanup would show here
  const deletes = readAuditEvents(run.seed).filter(
    (e) =>
      e.verb === 'delete' &&
      e.stage === 'ResponseComplete' &&
      e.requestURI.includes(`/namespaces/${run.landscape.namespace}/secrets/shoot-access-${NAME.downloader}`),
  ).length;
  const cleanups = await run.controllerManager?.metric('gardener_osc_migration_cleanups_total', {
    namespace: run.landscape.namespace,
  });
  const nodes: NodeResult[] = run.nodes.map((node) => ({
    name: node.name,
    pool: node.spec.pool,
    zone: node.spec.zone,
    migration: migration.nodes.get(node.name)!,
    rollout: {
      ...rollout.nodes.get(node.name)!,
      checksumOk:
        finalNodes.get(node.name)?.metadata?.annotations?.[ANNOTATION.checksumCloudConfigData] ===
        finalSecrets.get(node.spec.pool)?.checksum,
    },
    limits: limits.nodes.get(node.name)!,
    agentStarts: node.agentStarts.length,
  }));
  const { nodes: _migrated, pools: _pools, ...migrationSummary } = migration;
  const { nodes: _rolled, ...rolloutSummary } = rollout;
  const { nodes: _probed, ...limitsSummary } = limits;
  return {
    startedAt: run.startedAt,
    maxDelaySeconds: run.maxDelaySeconds,
    workDir: run.workDir,
    nodes,
    pools: [...finalSecrets.values()].map((p) => ({
      name: p.pool,
      secret: p.name,
      checksum: p.checksum,
      nodes: run.nodes.filter((n) => n.spec.pool === p.pool).length,
    })),
    phases: run.phases as ScenarioResult['phases'],
    migration: { ...migrationSummary, legacyAccessSecretDeletes: deletes, cleanupsMetric: cleanups },
    rollout: rolloutSummary,
    limits: limitsSummary,
    timeline: run.timeline,
  };
}
