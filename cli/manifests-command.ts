/**
 * `gardener-osc manifests --config FILE`: what a landscape applies to run the controller-manager
 * in its seed (ClusterRole with the reason of every rule, binding, ServiceAccount, the validated
 * configuration as a ConfigMap, the Deployment, the metrics Service, a PodDisruptionBudget, with
 * per-node identities the authorizer's Service), with `--shoot-role` the documented minimum
 * ClusterRole for the shoot identity of `gardener-internal`, with `--shoot-authorization <shoot
 * namespace>` what that shoot's kube-apiserver needs to ask the node agent authorizer.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import {
  fieldErrorsFromZod,
  formatFieldErrors,
  NODE_AGENT_IDENTITY,
  parseYaml,
  stringifyYaml,
  validateGardenerCoreObject,
} from '../api/index.js';
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
import { chartFiles } from '../charts/controller-manager/helm-chart.js';
import {
  CONTROLLER_MANAGER_IMAGE_NAME,
  IMAGE_VECTOR,
  ImageVectorSchema,
  imageReference,
  overrideImageVector,
} from '../charts/controller-manager/image-vector.js';
import { UsageError } from '../runtime/cli/exit-codes.js';
import {
  type ControllerManagerConfiguration,
  encodeControllerManagerConfiguration,
} from '../seed/manager/config.js';
import {
  checkControllerManagerConfiguration,
  loadControllerManagerConfiguration,
} from './controller-manager-command.js';
import { manifestsFlagProblems } from './manifests-options.js';

export interface ManifestsOptions {
  readonly config: string;
  readonly namespace: string;
  /** Default: the image vector's (--image-vector over charts/images.yaml). */
  readonly image?: string;
  readonly imageVector?: string;
  readonly replicas: string;
  readonly priorityClass?: string;
  readonly shootRole?: boolean;
  readonly controllerRegistration?: boolean;
  /** A directory: write the Helm chart (the ControllerDeployment's) there as files instead. */
  readonly helmChart?: string;
  /** `--vpa` / `--no-vpa`; default: on for the Gardener install (seeds run VPA), off for plain manifests. */
  readonly vpa?: boolean;
  /** A shoot namespace: print its kube-apiserver's authorization configuration instead. */
  readonly shootAuthorization?: string;
  readonly authorizerUrl?: string;
  readonly authorizerCa?: string;
  /** The authorizer's token key (`nodeAgent.authorizer.tokenKeyFile`), to derive the shoot's token. */
  readonly authorizerTokenKey?: string;
  readonly webhookKubeconfig?: string;
}

/** The image `npm run build:controller-manager-image` tags (push it there, or pass --image or --image-vector). */
export const DEFAULT_CONTROLLER_MANAGER_IMAGE = imageReference(IMAGE_VECTOR, CONTROLLER_MANAGER_IMAGE_NAME);

/** --image, else the gardener-osc image of --image-vector over the shipped vector. */
function resolveImage(options: ManifestsOptions): string {
  if (options.image !== undefined) return options.image;
  if (options.imageVector === undefined) return DEFAULT_CONTROLLER_MANAGER_IMAGE;
  let text: string;
  try {
    text = readFileSync(options.imageVector, 'utf8');
  } catch (e) {
    throw new UsageError(`--image-vector: cannot read ${options.imageVector}: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (e) {
    throw new UsageError(`--image-vector ${options.imageVector}: ${(e as Error).message}`);
  }
  const decoded = ImageVectorSchema.safeParse(parsed);
  if (!decoded.success)
    throw new UsageError(
      `--image-vector ${options.imageVector}:\n${formatFieldErrors(fieldErrorsFromZod(decoded.error))}`,
    );
  return imageReference(overrideImageVector(IMAGE_VECTOR, decoded.data), CONTROLLER_MANAGER_IMAGE_NAME);
}

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
  given: ManifestsOptions,
  readConfig: (path: string) => ControllerManagerConfiguration = loadControllerManagerConfiguration,
): string {
  const config = readConfig(given.config);
  const options = { ...given, image: resolveImage(given) };
  if (options.shootRole) return stringifyYaml(shootClusterRole(config.applyMode, config.nodeAgent.identity));
  const flags = manifestsFlagProblems(options).filter(
    // the ControllerRegistration's chart is installed by gardenlet into its own namespace
    (e) => !((options.controllerRegistration || options.helmChart) && e.field === '--namespace'),
  );
  if (flags.length > 0) throw new UsageError(`invalid flags:\n${formatFieldErrors(flags)}`);
  if (options.shootAuthorization) return shootAuthorization(options, config.nodeAgent.identity);
  checkControllerManagerConfiguration(options.config, config, { forPod: true });
  try {
    return render(options, config);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    // the checks above name every input the renderer is known to refuse; anything else is still
    // one line, not the renderer's stack trace
    throw new UsageError(`cannot render the manifests of ${options.config}: ${(e as Error).message}`);
  }
}

function render(
  options: ManifestsOptions & { readonly image: string },
  config: ControllerManagerConfiguration,
): string {
  const replicas = Number(options.replicas);
  if (!Number.isInteger(replicas) || replicas < 1)
    throw new UsageError(`--replicas: "${options.replicas}" is not a positive number`);
  const gardenerInstall = Boolean(options.controllerRegistration || options.helmChart);
  const vpa = options.vpa ?? gardenerInstall;
  if (options.helmChart) {
    const files = chartFiles({
      image: options.image,
      replicas,
      ...(options.priorityClass ? { priorityClassName: options.priorityClass } : {}),
      vpa: { enabled: vpa },
      config: podConfiguration(config),
    });
    const written: string[] = [];
    for (const [path, text] of files) {
      const file = join(options.helmChart, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      written.push(file);
    }
    return `${written.join('\n')}\n`;
  }
  if (options.controllerRegistration) {
    const objects = controllerRegistrationObjects({
      image: options.image,
      replicas,
      priorityClassName: options.priorityClass,
      vpa: { enabled: vpa },
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
    vpa,
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
    .option(
      '--image <image>',
      `controller-manager image (default: --image-vector's, else ${DEFAULT_CONTROLLER_MANAGER_IMAGE})`,
    )
    .option(
      '--image-vector <file>',
      "an image vector (Gardener's charts/images.yaml shape) whose gardener-osc entry replaces the shipped one",
    )
    .option('--replicas <n>', 'replicas (leader election keeps one active)', '2')
    .option('--priority-class <name>', 'priorityClassName of the pods (e.g. gardener-system-900)')
    .option(
      '--controller-registration',
      'print a Gardener ControllerRegistration and ControllerDeployment (Helm chart) that install it instead',
    )
    .option(
      '--helm-chart <dir>',
      "write the ControllerDeployment's Helm chart into DIR (Chart.yaml, values.yaml, templates/) instead",
    )
    .option('--vpa', 'add a VerticalPodAutoscaler (default with --controller-registration and --helm-chart)')
    .option('--no-vpa', 'leave the VerticalPodAutoscaler out')
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
