/**
 * `gardener-osc controller-manager --config FILE`: runs the seed-side controllers until SIGTERM or
 * SIGINT, then stops them (finishing the reconciles in flight, handing the leader lease over) and
 * exits 0. An invalid configuration exits 2 with every field error before anything starts;
 * `--check-config` only validates, prints the effective configuration and exits.
 */
import type { Command } from 'commander';
import { formatFieldErrors, stringifyYaml } from '../api/index.js';
import { runControllerManager } from '../controllers/index.js';
import { UsageError } from '../runtime/cli/exit-codes.js';
import { inputName } from '../runtime/cli/input-file.js';
import { loadRestConfig } from '../runtime/kube/load-rest-config.js';
import type { RestConfig } from '../runtime/kube/rest-config.js';
import { createLogger } from '../runtime/logging.js';
import { type CheckOptions, configurationProblems } from '../seed/manager/check-config.js';
import {
  type ControllerManagerConfiguration,
  encodeControllerManagerConfiguration,
  parseControllerManagerConfiguration,
} from '../seed/manager/config.js';
import { readInput } from './render-input.js';

export interface ControllerManagerOptions {
  readonly config: string;
  readonly healthPort?: string;
  readonly metricsPort?: string;
  /** `--log-level`: overrides the configuration's logLevel. */
  readonly logLevel?: ControllerManagerConfiguration['logLevel'];
  readonly checkConfig?: boolean;
}

function port(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`${flag}: "${text}" is not a port`);
  return n;
}

export function loadControllerManagerConfiguration(
  path: string,
  readStdin?: () => string,
): ControllerManagerConfiguration {
  const text = readInput(path, '--config', readStdin);
  const result = parseControllerManagerConfiguration(text);
  if (!result.ok)
    throw new UsageError(`invalid configuration ${inputName(path)}:\n${formatFieldErrors(result.errors)}`);
  return result.value;
}

/** Refuses (exit 2) a configuration whose fields cannot work together (seed/manager/check-config.ts). */
export function checkControllerManagerConfiguration(
  path: string,
  config: ControllerManagerConfiguration,
  options?: CheckOptions,
): void {
  const problems = configurationProblems(config, options);
  if (problems.length > 0)
    throw new UsageError(`invalid configuration ${inputName(path)}:\n${formatFieldErrors(problems)}`);
}

/** The seed: the configured kubeconfig, else $KUBECONFIG, else the in-cluster ServiceAccount. */
export async function seedRestConfig(
  config: ControllerManagerConfiguration,
  env: NodeJS.ProcessEnv,
): Promise<RestConfig> {
  try {
    return await loadRestConfig({ kubeconfig: config.seedKubeconfig, env });
  } catch (e) {
    throw new UsageError(`cannot load the seed kubeconfig: ${(e as Error).message}`);
  }
}

export async function runControllerManagerCommand(
  options: ControllerManagerOptions,
  readStdin?: () => string,
): Promise<void> {
  const config = loadControllerManagerConfiguration(options.config, readStdin);
  if (options.checkConfig) {
    // what `manifests` deploys: the pod runs this file, so its ports must be fixed
    checkControllerManagerConfiguration(options.config, config, { forPod: true });
    process.stdout.write(stringifyYaml(encodeControllerManagerConfiguration(config)));
    return;
  }
  const healthPort = port('--health-port', options.healthPort);
  const metricsPort = port('--metrics-port', options.metricsPort);
  checkControllerManagerConfiguration(options.config, {
    ...config,
    server: {
      healthProbes: { ...config.server.healthProbes, port: healthPort ?? config.server.healthProbes.port },
      metrics: { ...config.server.metrics, port: metricsPort ?? config.server.metrics.port },
    },
  });
  const seed = await seedRestConfig(config, process.env);
  const log = createLogger({
    name: 'gardener-osc-controller-manager',
    level: options.logLevel ?? config.logLevel,
    format: config.logFormat,
  });
  const manager = await runControllerManager({ config, seed, log, healthPort, metricsPort });
  const onSignal = (signal: NodeJS.Signals) => {
    log.info({ signal }, 'Stopping');
    manager.stop();
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  await manager.stopped;
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  log.info('Stopped');
}

export function addControllerManagerCommand(program: Command, readStdin?: () => string): void {
  program
    .command('controller-manager')
    .description(
      'run the seed-side controllers (operatingsystemconfig, migration, node-delay, token-labels, token-requestor in direct mode, os-local, rollout, node-agent-csr-approver and node-agent-authorizer with per-node identities) for the Clusters the configuration selects',
    )
    .requiredOption(
      '--config <file>',
      'ControllerManagerConfiguration (YAML; "-": standard input); see docs/controller-manager.md',
    )
    .option('--health-port <port>', 'override server.healthProbes.port (0: any free port)')
    .option('--metrics-port <port>', 'override server.metrics.port (0: any free port)')
    .option(
      '--check-config',
      'validate the configuration, print it with every default filled in and exit (0 valid, 2 invalid)',
    )
    .action(async (options: ControllerManagerOptions) => {
      await runControllerManagerCommand(options, readStdin);
    });
}
