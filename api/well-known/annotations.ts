/**
 * Annotation keys and values of the contract (gardener v1.91.4
 * pkg/apis/core/v1beta1/constants/types_constants.go, pkg/utils/gardener/shoot.go,
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go,
 * pkg/nodeagent/apis/config/v1alpha1/types.go).
 */
export const ANNOTATION = {
  operation: 'gardener.cloud/operation',
  timestamp: 'gardener.cloud/timestamp',
  confirmDeletion: 'confirmation.gardener.cloud/deletion',
  checksumDataScript: 'checksum/data-script',
  checksumCloudConfigData: 'checksum/cloud-config-data',
  reconciliationDelay: 'node-agent.gardener.cloud/reconciliation-delay',
  restartSystemdServices: 'worker.gardener.cloud/restart-systemd-services',
  maxDelaySeconds: 'shoot.gardener.cloud/cloud-config-execution-max-delay-seconds',
  serviceAccountName: 'serviceaccount.resources.gardener.cloud/name',
  serviceAccountNamespace: 'serviceaccount.resources.gardener.cloud/namespace',
  serviceAccountLabels: 'serviceaccount.resources.gardener.cloud/labels',
  tokenExpirationDuration: 'serviceaccount.resources.gardener.cloud/token-expiration-duration',
  tokenRenewTimestamp: 'serviceaccount.resources.gardener.cloud/token-renew-timestamp',
  targetSecretName: 'token-requestor.resources.gardener.cloud/target-secret-name',
  targetSecretNamespace: 'token-requestor.resources.gardener.cloud/target-secret-namespace',
  resourcesMode: 'resources.gardener.cloud/mode',
  resourcesOrigin: 'resources.gardener.cloud/origin',
  referenceSecretPrefix: 'reference.resources.gardener.cloud/secret-',
} as const;

export const OPERATION = {
  reconcile: 'reconcile',
  waitForState: 'wait-for-state',
  restore: 'restore',
  migrate: 'migrate',
} as const;

export const RESOURCES_MODE_IGNORE = 'Ignore';

/** The taint machine-controller-manager puts on nodes it is about to delete. */
export const TAINT_PREFER_NO_SCHEDULE = {
  key: 'deployment.machine.sapcloud.io/prefer-no-schedule',
  effect: 'PreferNoSchedule',
} as const;
