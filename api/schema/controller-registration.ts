/**
 * Gardener's ControllerRegistration and ControllerDeployment (core.gardener.cloud/v1beta1, v1.91):
 * the fields of the Go types, strict (we write these), and the rules of gardener-apiserver's
 * validation (pkg/apis/core/validation: controllerregistration.go, controllerdeployment.go). These
 * types are served by gardener-apiserver, so there is no CRD to validate against: this is the schema.
 * For `type: helm`, the providerConfig is checked as gardenlet decodes it: `chart` is base64 bytes.
 */
import * as z from 'zod';
import { type FieldError, fieldErrorsFromZod } from '../validation/field-error.js';

export const CORE_GARDENER_API_VERSION = 'core.gardener.cloud/v1beta1';

/** The extension kinds a ControllerRegistration may name (v1.91 SupportedExtensionKinds). */
export const SUPPORTED_EXTENSION_KINDS = [
  'BackupBucket',
  'BackupEntry',
  'Bastion',
  'ContainerRuntime',
  'ControlPlane',
  'DNSRecord',
  'Extension',
  'Infrastructure',
  'Network',
  'OperatingSystemConfig',
  'Worker',
] as const;
export const DEPLOYMENT_POLICIES = ['OnDemand', 'Always', 'AlwaysExceptNoShoots'] as const;
const LIFECYCLE_STRATEGIES = ['BeforeKubeAPIServer', 'AfterKubeAPIServer'] as const;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const metadata = z.strictObject({
  name: z
    .string()
    .max(63, 'must be no more than 63 characters')
    .regex(DNS_LABEL, 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "-"'),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});

const lifecycle = z.strictObject({
  reconcile: z.string().optional(),
  delete: z.string().optional(),
  migrate: z.string().optional(),
});

const resource = z.strictObject({
  kind: z.string(),
  type: z.string(),
  globallyEnabled: z.boolean().optional(),
  reconcileTimeout: z.string().optional(),
  primary: z.boolean().optional(),
  lifecycle: lifecycle.optional(),
  workerlessSupported: z.boolean().optional(),
});

const labelSelector = z.strictObject({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z
    .array(z.strictObject({ key: z.string(), operator: z.string(), values: z.array(z.string()).optional() }))
    .optional(),
});

export const ControllerRegistrationSchema = z.strictObject({
  apiVersion: z.literal(CORE_GARDENER_API_VERSION),
  kind: z.literal('ControllerRegistration'),
  metadata,
  spec: z.strictObject({
    resources: z.array(resource).optional(),
    deployment: z
      .strictObject({
        policy: z.string().optional(),
        seedSelector: labelSelector.optional(),
        deploymentRefs: z.array(z.strictObject({ name: z.string() })).optional(),
      })
      .optional(),
  }),
});

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const ControllerDeploymentSchema = z.strictObject({
  apiVersion: z.literal(CORE_GARDENER_API_VERSION),
  kind: z.literal('ControllerDeployment'),
  metadata,
  type: z.string().min(1, 'must provide a type'),
  providerConfig: z.record(z.string(), z.unknown()),
});

const HelmProviderConfigSchema = z.strictObject({
  chart: z.string().min(1).regex(base64, 'not base64 (gardenlet decodes the chart archive from it)'),
  values: z.record(z.string(), z.unknown()).optional(),
});

export type ControllerRegistration = z.output<typeof ControllerRegistrationSchema>;
export type ControllerDeployment = z.output<typeof ControllerDeploymentSchema>;

/** ValidateControllerRegistrationSpec of v1.91, on a decoded object. */
function registrationRules(registration: ControllerRegistration): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  let primary = false;
  (registration.spec.resources ?? []).forEach((r, i) => {
    const at = `spec.resources[${i}]`;
    if (r.kind === '') errors.push({ type: 'Required', field: `${at}.kind`, detail: 'field is required' });
    if (!(SUPPORTED_EXTENSION_KINDS as readonly string[]).includes(r.kind))
      errors.push({
        type: 'NotSupported',
        field: `${at}.kind`,
        value: r.kind,
        detail: `supported values: ${SUPPORTED_EXTENSION_KINDS.join(', ')}`,
      });
    if (r.type === '') errors.push({ type: 'Required', field: `${at}.type`, detail: 'field is required' });
    if (seen.has(`${r.kind}/${r.type}`))
      errors.push({
        type: 'Duplicate',
        field: at,
        value: `${r.kind}/${r.type}`,
        detail: 'kind and type twice',
      });
    seen.add(`${r.kind}/${r.type}`);
    if (r.kind !== 'Extension') {
      for (const key of ['globallyEnabled', 'reconcileTimeout', 'lifecycle'] as const)
        if (r[key] !== undefined)
          errors.push({
            type: 'Forbidden',
            field: `${at}.${key}`,
            detail: 'field must not be set when kind != Extension',
          });
    } else {
      for (const key of ['reconcile', 'delete', 'migrate'] as const) {
        const strategy = r.lifecycle?.[key];
        if (strategy !== undefined && !(LIFECYCLE_STRATEGIES as readonly string[]).includes(strategy))
          errors.push({
            type: 'NotSupported',
            field: `${at}.lifecycle.${key}`,
            value: strategy,
            detail: `supported values: ${LIFECYCLE_STRATEGIES.join(', ')}`,
          });
      }
    }
    if (r.primary !== false) primary = true;
  });
  const deployment = registration.spec.deployment;
  if (deployment) {
    if (
      deployment.policy !== undefined &&
      !(DEPLOYMENT_POLICIES as readonly string[]).includes(deployment.policy)
    )
      errors.push({
        type: 'NotSupported',
        field: 'spec.deployment.policy',
        value: deployment.policy,
        detail: `supported values: ${DEPLOYMENT_POLICIES.join(', ')}`,
      });
    if (deployment.seedSelector && primary)
      errors.push({
        type: 'Forbidden',
        field: 'spec.deployment.seedSelector',
        detail: 'specifying a seed selector is not allowed when controlling resources primarily',
      });
    const refs = deployment.deploymentRefs ?? [];
    if (refs.length > 1)
      errors.push({
        type: 'Forbidden',
        field: 'spec.deployment.deploymentRefs',
        detail: 'only one deployment reference is allowed',
      });
    refs.forEach((ref, i) => {
      if (ref.name === '')
        errors.push({
          type: 'Required',
          field: `spec.deployment.deploymentRefs[${i}].name`,
          detail: 'must not be empty',
        });
    });
  }
  return errors;
}

/** Schema and rules of gardener-apiserver for a ControllerRegistration or ControllerDeployment. */
export function validateGardenerCoreObject(object: unknown): FieldError[] {
  const kind = (object as { kind?: unknown } | undefined)?.kind;
  if (kind === 'ControllerRegistration') {
    const parsed = ControllerRegistrationSchema.safeParse(object);
    return parsed.success ? registrationRules(parsed.data) : fieldErrorsFromZod(parsed.error);
  }
  if (kind === 'ControllerDeployment') {
    const parsed = ControllerDeploymentSchema.safeParse(object);
    if (!parsed.success) return fieldErrorsFromZod(parsed.error);
    if (parsed.data.type !== 'helm') return [];
    const helm = HelmProviderConfigSchema.safeParse(parsed.data.providerConfig);
    return helm.success ? [] : fieldErrorsFromZod(helm.error, ['providerConfig']);
  }
  return [
    {
      type: 'NotSupported',
      field: 'kind',
      value: kind,
      detail: 'ControllerRegistration or ControllerDeployment',
    },
  ];
}
