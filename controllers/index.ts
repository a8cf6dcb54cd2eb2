/**
 * The seed controllers of `gardener-osc controller-manager`, as its configuration selects them:
 * operatingsystemconfig, migration, token-requestor (direct mode) and os-local over the seed;
 * node-delay, rollout and token-labels per selected shoot; with per-node identities the node agent
 * CSR approver per shoot, and on every replica the node agent authorizer (its endpoint, and each
 * shoot's view). seed/manager runs them while it leads (the authorizer always). The node-delay,
 * CSR approver and authorizer act for a Cluster only as left-to-resource-manager.ts decides.
 */
import { chooseGardenerVersion, NANOS_PER_MILLISECOND, NODE_AGENT_IDENTITY } from '../api/index.js';
import type { ControllerManagerConfiguration } from '../seed/manager/config.js';
import type {
  SeedContext,
  SeedControllerStarter,
  ShootContext,
  ShootControllerStarter,
} from '../seed/manager/context.js';
import {
  type ControllerSet,
  type ManagerOptions,
  type RunningManager,
  runManager,
} from '../seed/manager/run-manager.js';
import { shootAccessSecrets } from '../seed/manager/seed-informers.js';
import { actsForCluster, type ResourceManagerOwned } from './left-to-resource-manager.js';
import { addMigrationController } from './migration/add.js';
import { nodeAgentAuthorizer } from './node-agent-authorizer/add.js';
import { addCsrApproverController } from './node-agent-csr-approver/add.js';
import { maxLifetimeWarning } from './node-agent-csr-approver/lifetime-warning.js';
import { addNodeDelayController } from './node-delay/add.js';
import { addOscController } from './operatingsystemconfig/add.js';
import { addOsLocalController } from './os-local/add.js';
import { addRolloutController } from './rollout/add.js';
import { addTokenLabelsController } from './token-labels/add.js';
import { addTokenRequestorController } from './token-requestor/add.js';

/** Whether `controller` acts for the shoot, asked at each use (the Cluster's annotation may change). */
function actsFor(config: ControllerManagerConfiguration, controller: ResourceManagerOwned) {
  const settings = {
    gardenerVersion: config.gardenerVersion,
    inV150Mode: config.controllers[controller].inV150Mode,
  };
  return (shoot: ShootContext, seed: SeedContext) => () =>
    actsForCluster(seed.clusters.get(shoot.namespace)?.metadata?.annotations, settings);
}

/** The controllers the configuration turns on. */
export function seedControllers(config: ControllerManagerConfiguration): ControllerSet {
  // beside a gardenlet that renders, the render and its migration stay out (docs/controller-manager.md)
  const seed: SeedControllerStarter[] = config.controllers.operatingSystemConfig.enabled
    ? [addOscController, addMigrationController]
    : [];
  if (config.applyMode === 'direct') seed.push(addTokenRequestorController);
  if (config.controllers.osLocal.enabled)
    for (const type of config.controllers.osLocal.types) seed.push((ctx) => addOsLocalController(ctx, type));
  const shoot: ShootControllerStarter[] = [];
  const { nodeDelay, tokenLabels } = config.controllers;
  if (nodeDelay.enabled) {
    const acts = actsFor(config, 'nodeDelay');
    shoot.push((ctx, env) =>
      addNodeDelayController(ctx, env, {
        minDelay: nodeDelay.minDelay * NANOS_PER_MILLISECOND,
        acts: acts(ctx, env),
      }),
    );
  }
  // the rollout runs for every shoot: with its gate off (config or Cluster) it removes its permissions
  shoot.push((ctx, env) => addRolloutController(ctx, env));
  if (tokenLabels.enabled)
    shoot.push((ctx, env) => addTokenLabelsController(ctx, env, shootAccessSecrets(env.cache)));
  if (config.nodeAgent.identity !== NODE_AGENT_IDENTITY.node) return { seed, shoot };
  const { maxCertificateLifetime } = config.nodeAgent;
  const approverActs = actsFor(config, 'nodeAgentCsrApprover');
  shoot.push((ctx, env) =>
    addCsrApproverController(ctx, env, { maxCertificateLifetime, acts: approverActs(ctx, env) }),
  );
  // the authorizer answers on every replica, from caches that run there too
  const v150For = (shoot: ShootContext, seed: SeedContext) => () => {
    const annotations = seed.clusters.get(shoot.namespace)?.metadata?.annotations;
    const choice = chooseGardenerVersion(annotations, config.gardenerVersion);
    return choice.ok && choice.version === 'v1.150.0';
  };
  const authorizer = nodeAgentAuthorizer(config, actsFor(config, 'nodeAgentAuthorizer'), v150For);
  return {
    seed,
    shoot,
    everyReplica: { seed: authorizer.seed ? [authorizer.seed] : [], shoot: [authorizer.shoot] },
  };
}

/** Runs the controller-manager process with the seed controllers its configuration turns on. */
export function runControllerManager(o: ManagerOptions): Promise<RunningManager> {
  const { nodeAgent } = o.config;
  if (nodeAgent.identity === NODE_AGENT_IDENTITY.node && !nodeAgent.authorizer)
    o.log.warn(
      'nodeAgent.authorizer is not configured: node agents get their identities, but no shoot API server can ask whether they may act (docs/security.md)',
    );
  const lifetime = maxLifetimeWarning(nodeAgent.maxCertificateLifetime);
  if (nodeAgent.identity === NODE_AGENT_IDENTITY.node && lifetime) o.log.warn(lifetime);
  return runManager({ ...o, controllers: seedControllers(o.config) });
}
