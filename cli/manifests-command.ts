/**
 * `gardener-osc manifests --config FILE`: what a landscape applies to run the controller-manager
 * in its seed (ClusterRole with the reason of every rule, binding, ServiceAccount, the validated
 * configuration as a ConfigMap, the Deployment, the metrics Service, a PodDisruptionBudget, with
 * per-node identities the authorizer's Service), with `--shoot-role` the documented minimum
 * ClusterRole for the shoot identity of `gardener-internal`, with `--shoot-authorization <shoot
 * namespace>` what that shoot's kube-apiserver needs to ask the node agent authorizer.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  formatFieldErrors,
  NODE_AGENT_IDENTITY,
  stringifyYaml,
  validateGardenerCoreObject,
} from '../api/index.js';
import { VERSION } from '../api/version.js';
import {
  authorizerUrl,
  authorizerWebhookKubeconfig,
  nodeAgentAuthorizationConfiguration,
} from '../charts/controller-manager/authorization-config.js';
import { authorizerCallerToken, readTokenKey } from '../charts/controller-manager/authorizer-caller-token.js';
import {
  AUTHORIZER_SERVICE,
  controllerManagerObjects,
  shootClusterRole,
} from '../charts/controller-manager/controller-manager.js';
import { controllerRegistrationObjects } from '../charts/controller-manager/controller-registration.js';
import { UsageError } from '../runtime/cli/exit-codes.js';
import {
  type ControllerManagerConfiguration,
  encodeControllerManagerConfiguration,
} from '../seed/manager/config.js';
import { loadControllerManagerConfiguration } from './controller-manager-command.js';

export interface ManifestsOptions {
  readonly config: string;
  readonly namespace: string;
  readonly image: string;
  readonly replicas: string;
  readonly priorityClass?: string;
  readonly shootRole?: boolean;
  readonly controllerRegistration?: boolean;
  /** A shoot namespace: print its kube-apiserver's authorization configuration instead. */
  readonly shootAuthorization?: string;
  readonly authorizerUrl?: string;
  readonly authorizerCa?: string;
  /** The authorizer's token key (`nodeAgent.authorizer.tokenKeyFile`), to derive the shoot's token. */
  readonly authorizerTokenKey?: string;
  readonly webhookKubeconfig?: string;
}

/** The image `npm run build:controller-manager-image` tags (push it there, or pass --image). */
export const DEFAULT_CONTROLLER_MANAGER_IMAGE = `europe-docker.pkg.dev/gardener-project/releases/gardener-osc:v${VERSION}`;

/** The configuration the pod reads: every default written out, without the local seed kubeconfig. */
export function podConfiguration(config: ReturnType<typeof loadControllerManagerConfiguration>) {
  const document = encodeControllerManagerConfiguration(config);
  // in the seed the pod uses its ServiceAccount
  delete document.seedKubeconfig;
  return document;
}

export const DEFAULT_WEBHOOK_KUBECONFIG = '/etc/kubernetes/node-agent-authorizer/kubeconfig';

/** The shoot kube-apiserver's `--authorization-config` file and the webhook kubeconfig it names. */
function shootAuthorization(options: ManifestsOptions, identity: string): string {
  if (identity !== NODE_AGENT_IDENTITY.node)
    throw new UsageError(
      '--shoot-authorization: nodeAgent.identity is serviceAccount; agents are authorized by RBAC then',
    );
  if (!options.authorizerCa)
    throw new UsageError(
      '--shoot-authorization needs --authorizer-ca FILE: the CA of the authorizer serving certificate',
    );
  let caPem: string;
  try {
    caPem = readFileSync(options.authorizerCa, 'utf8');
  } catch (e) {
    throw new UsageError(`--authorizer-ca: cannot read ${options.authorizerCa}: ${(e as Error).message}`);
  }
  if (!caPem.includes('-----BEGIN CERTIFICATE-----'))
    throw new UsageError(`--authorizer-ca ${options.authorizerCa} holds no PEM certificate`);
  if (!options.authorizerTokenKey)
    throw new UsageError(
      "--shoot-authorization needs --authorizer-token-key FILE: the key the shoot's bearer token is derived from (nodeAgent.authorizer.tokenKeyFile)",
    );
  let tokenKey: Buffer;
  try {
    tokenKey = readTokenKey(readFileSync(options.authorizerTokenKey, 'utf8'), '--authorizer-token-key');
  } catch (e) {
    const message = (e as Error & { code?: string }).code
      ? `--authorizer-token-key: cannot read ${options.authorizerTokenKey}: ${(e as Error).message}`
      : (e as Error).message;
    throw new UsageError(message);
  }
  const shoot = options.shootAuthorization ?? '';
  const base = options.authorizerUrl ?? `https://${AUTHORIZER_SERVICE}.${options.namespace}.svc`;
  if (!/^https:\/\//.test(base)) throw new UsageError(`--authorizer-url must be https://, not ${base}`);
  const kubeconfigPath = options.webhookKubeconfig ?? DEFAULT_WEBHOOK_KUBECONFIG;
  return [
    nodeAgentAuthorizationConfiguration({ webhookKubeconfigPath: kubeconfigPath }),
    authorizerWebhookKubeconfig({
      url: authorizerUrl(base, shoot),
      caPem,
      token: authorizerCallerToken(tokenKey, shoot),
    }),
  ]
    .map((o) => stringifyYaml(o))
    .join('---\n');
}

export function manifests(
  options: ManifestsOptions,
  readConfig: (path: string) => ControllerManagerConfiguration = loadControllerManagerConfiguration,
): string {
  const config = readConfig(options.config);
  if (options.shootRole) return stringifyYaml(shootClusterRole(config.applyMode, config.nodeAgent.identity));
  if (options.shootAuthorization) return shootAuthorization(options, config.nodeAgent.identity);
  const replicas = Number(options.replicas);
  if (!Number.isInteger(replicas) || replicas < 1)
    throw new UsageError(`--replicas: "${options.replicas}" is not a positive number`);
  if (options.controllerRegistration) {
    if (config.nodeAgent.identity === NODE_AGENT_IDENTITY.node && config.nodeAgent.authorizer)
      throw new UsageError(
        '--controller-registration: its Helm chart does not serve the node agent authorizer yet (nodeAgent.authorizer); deploy the manifests `gardener-osc manifests` prints, or leave nodeAgent.authorizer out',
      );
    const objects = controllerRegistrationObjects({
      image: options.image,
      replicas,
      priorityClassName: options.priorityClass,
      config: podConfiguration(config),
      osLocalTypes: config.controllers.osLocal.enabled ? config.controllers.osLocal.types : [],
    });
    for (const object of objects) {
      const errors = validateGardenerCoreObject(object);
      if (errors.length > 0)
        throw new Error(`rendered an invalid ${object.kind}:\n${formatFieldErrors(errors)}`);
    }
    return objects.map((o) => stringifyYaml(o)).join('---\n');
  }
  const objects = controllerManagerObjects({
    namespace: options.namespace,
    image: options.image,
    replicas,
    priorityClassName: options.priorityClass,
    config: podConfiguration(config),
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
    .option('--image <image>', 'controller-manager image', DEFAULT_CONTROLLER_MANAGER_IMAGE)
    .option('--replicas <n>', 'replicas (leader election keeps one active)', '2')
    .option('--priority-class <name>', 'priorityClassName of the pods (e.g. gardener-system-900)')
    .option(
      '--controller-registration',
      'print a Gardener ControllerRegistration and ControllerDeployment (Helm chart) that install it instead',
    )
    .option(
      '--shoot-role',
      'print the minimum ClusterRole for the shoot identity of gardener-internal instead',
    )
    .option(
      '--shoot-authorization <shoot namespace>',
      "print that shoot kube-apiserver's --authorization-config file and the authorizer webhook kubeconfig it names (with the shoot's bearer token: a secret) instead",
    )
    .option(
      '--authorizer-url <url>',
      'how kube-apiservers reach the authorizer (default: https://gardener-osc-controller-manager-authorizer.<namespace>.svc)',
    )
    .option('--authorizer-ca <file>', 'the CA of the authorizer serving certificate (PEM)')
    .option(
      '--authorizer-token-key <file>',
      "the authorizer's token key (nodeAgent.authorizer.tokenKeyFile): the shoot's bearer token is derived from it",
    )
    .option(
      '--webhook-kubeconfig <path>',
      'where the kube-apiserver finds the webhook kubeconfig',
      DEFAULT_WEBHOOK_KUBECONFIG,
    )
    .action((options: ManifestsOptions) => {
      process.stdout.write(manifests(options, (path) => loadControllerManagerConfiguration(path, readStdin)));
    });
}
