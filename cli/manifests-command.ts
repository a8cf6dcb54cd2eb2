/**
 * `gardener-osc manifests --config FILE`: what a landscape applies to run the controller-manager
 * in its seed (ServiceAccount, ClusterRole with the reason of every rule, binding, the validated
 * configuration as a ConfigMap, the Deployment), and with `--shoot-role` the documented minimum
 * ClusterRole for the shoot identity of `gardener-internal`.
 */
import type { Command } from 'commander';
import { stringifyYaml } from '../api/index.js';
import {
  controllerManagerObjects,
  shootClusterRole,
} from '../charts/controller-manager/controller-manager.js';
import { UsageError } from '../runtime/cli/exit-codes.js';
import type { ControllerManagerConfiguration } from '../seed/manager/config.js';
import { loadControllerManagerConfiguration } from './controller-manager-command.js';

export interface ManifestsOptions {
  readonly config: string;
  readonly namespace: string;
  readonly image: string;
  readonly replicas: string;
  readonly shootRole?: boolean;
}

export function manifests(
  options: ManifestsOptions,
  readConfig: (path: string) => ControllerManagerConfiguration = loadControllerManagerConfiguration,
): string {
  const config = readConfig(options.config);
  if (options.shootRole) return stringifyYaml(shootClusterRole(config.applyMode));
  const replicas = Number(options.replicas);
  if (!Number.isInteger(replicas) || replicas < 1)
    throw new UsageError(`--replicas: "${options.replicas}" is not a positive number`);
  // the file as given is what the pod reads (validated above), with seedKubeconfig dropped: in the
  // seed the pod uses its ServiceAccount
  const raw = { ...(config as Record<string, unknown>) };
  delete raw.seedKubeconfig;
  const objects = controllerManagerObjects({
    namespace: options.namespace,
    image: options.image,
    replicas,
    config: { ...raw, leaderElection: { ...config.leaderElection, name: config.leaderElection.name } },
  });
  return objects.map((o) => stringifyYaml(o)).join('---\n');
}

export function addManifestsCommand(program: Command, readStdin?: () => string): void {
  program
    .command('manifests')
    .description(
      'print the seed manifests that run the controller-manager (or, with --shoot-role, its minimum shoot role)',
    )
    .requiredOption(
      '--config <file>',
      'ControllerManagerConfiguration (YAML), validated and mounted into the pod',
    )
    .option('--namespace <ns>', 'seed namespace of the Deployment', 'garden')
    .option(
      '--image <image>',
      'controller-manager image',
      'europe-docker.pkg.dev/gardener-project/releases/gardener-osc:v0.1.0',
    )
    .option('--replicas <n>', 'replicas (leader election keeps one active)', '2')
    .option(
      '--shoot-role',
      'print the minimum ClusterRole for the shoot identity of gardener-internal instead',
    )
    .action((options: ManifestsOptions) => {
      process.stdout.write(manifests(options, (path) => loadControllerManagerConfiguration(path, readStdin)));
    });
}
