/**
 * A seed "shoot access" secret (gardener v1.91.4 pkg/utils/gardener/shoot.go): asks the token
 * requestor to mint a ServiceAccount token in the shoot and keep the target secret filled and
 * rotated. Exact labels and annotations are the contract with gardener-resource-manager.
 */
import { ANNOTATION } from '../well-known/annotations.js';
import { LABEL, LABEL_VALUE } from '../well-known/labels.js';
import { ACCESS_TOKEN_EXPIRATION, NAME, NAMESPACE_KUBE_SYSTEM } from '../well-known/names.js';

export interface ShootAccessSecretOptions {
  /** With or without the `shoot-access-` prefix. */
  readonly name: string;
  readonly namespace: string;
  readonly serviceAccountName?: string;
  readonly tokenExpirationDuration?: string;
  readonly targetSecretName: string;
  readonly targetSecretNamespace?: string;
}

export interface ShootAccessSecret {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  };
  type: 'Opaque';
}

export function shootAccessSecretName(name: string): string {
  return name.startsWith(NAME.shootAccessPrefix) ? name : `${NAME.shootAccessPrefix}${name}`;
}

export function shootAccessSecret(o: ShootAccessSecretOptions): ShootAccessSecret {
  const name = shootAccessSecretName(o.name);
  const annotations: Record<string, string> = {
    [ANNOTATION.serviceAccountName]: o.serviceAccountName ?? name.slice(NAME.shootAccessPrefix.length),
    [ANNOTATION.serviceAccountNamespace]: NAMESPACE_KUBE_SYSTEM,
    [ANNOTATION.targetSecretName]: o.targetSecretName,
    [ANNOTATION.targetSecretNamespace]: o.targetSecretNamespace ?? NAMESPACE_KUBE_SYSTEM,
  };
  if (o.tokenExpirationDuration) annotations[ANNOTATION.tokenExpirationDuration] = o.tokenExpirationDuration;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: o.namespace,
      labels: {
        [LABEL.tokenRequestorPurpose]: LABEL_VALUE.purposeTokenRequestor,
        [LABEL.resourceClass]: LABEL_VALUE.classShoot,
      },
      annotations,
    },
    type: 'Opaque',
  };
}

/** The access secrets node configuration needs (gardener v1.91.4 pkg/utils/gardener/shoot.go). */
export const NODE_AGENT_ACCESS = {
  name: NAME.nodeAgent,
  targetSecretName: NAME.nodeAgent,
  tokenExpirationDuration: ACCESS_TOKEN_EXPIRATION,
} as const;
export const DOWNLOADER_ACCESS = {
  name: NAME.downloader,
  targetSecretName: NAME.downloader,
  tokenExpirationDuration: ACCESS_TOKEN_EXPIRATION,
} as const;
export const VALITAIL_ACCESS = {
  name: 'valitail',
  serviceAccountName: NAME.valitail,
  targetSecretName: NAME.valitail,
  tokenExpirationDuration: ACCESS_TOKEN_EXPIRATION,
} as const;
/**
 * The v1.150.0 log shipper's token (gardener v1.150.0
 * pkg/component/observability/opentelemetry/collector/collector.go
 * `newLoggingAgentShootAccessSecret`), rendered where v1.91.4 mode renders valitail's.
 */
export const OPENTELEMETRY_COLLECTOR_ACCESS = {
  name: 'opentelemetry-collector',
  serviceAccountName: NAME.openTelemetryCollector,
  targetSecretName: NAME.openTelemetryCollector,
  tokenExpirationDuration: ACCESS_TOKEN_EXPIRATION,
} as const;
