/**
 * NodeAgentConfiguration (nodeagent.config.gardener.cloud/v1alpha1), gardener v1.91.4
 * pkg/nodeagent/apis/config/v1alpha1/types.go: its wire form (Go's JSON field names, `omitempty`
 * honoured, durations as Go duration strings, the Kubernetes version as semver text, caBundle as
 * base64), decoding, defaulting per contract and encoding. The seed renders it undefaulted, exactly
 * as gardenlet does (S-TV-10); the node agent decodes, defaults and validates it. The types:
 * node-agent-configuration-types.ts; validation: node-agent-configuration-validation.ts.
 */
import * as z from 'zod';
import { formatGoDuration, parseGoDuration } from '../duration.js';
import type { GardenerVersion } from '../gardener-version.js';
import { formatSemVer, parseSemVer } from '../semver.js';
import { type FieldError, fieldErrorsFromZod } from '../validation/field-error.js';
import { parseYaml, stringifyYaml } from '../yaml/codec.js';
import {
  NODE_AGENT_CONFIG_API_VERSION,
  NODE_AGENT_CONFIG_KIND,
  NODE_AGENT_DEFAULTS,
  NODE_AGENT_DEFAULTS_V150,
  type NodeAgentConfiguration,
  type ServerEndpoint,
} from './node-agent-configuration-types.js';
import { validateNodeAgentConfiguration } from './node-agent-configuration-validation.js';
import { objectOf, type Strictness, withoutNullMembers } from './strictness.js';

export * from './node-agent-configuration-types.js';
export { validateNodeAgentConfiguration } from './node-agent-configuration-validation.js';

const goDuration = z.string().transform((text, ctx) => {
  try {
    return parseGoDuration(text);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message, input: text });
    return z.NEVER;
  }
});

const semverText = z
  .string({ error: 'must be a version string such as "1.30.2" (quote it in YAML)' })
  .transform((text, ctx) => {
    try {
      return parseSemVer(text);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message, input: text });
      return z.NEVER;
    }
  });

const base64Text = z
  .string()
  .refine((s) => /^[A-Za-z0-9+/\r\n]*={0,2}$/.test(s) && s.replace(/[\r\n]/g, '').length % 4 === 0, {
    message: 'must be standard base64 with padding',
  });

/** The wire schema; decoding turns it into the typed configuration. */
export function nodeAgentConfigurationWireSchema(mode: Strictness) {
  const o = <S extends z.ZodRawShape>(shape: S) => objectOf(mode, shape);
  const endpoint = o({
    bindAddress: z.string().default(''),
    port: z.number().int().min(0).max(65535).default(0),
  });
  return o({
    apiVersion: z.literal(NODE_AGENT_CONFIG_API_VERSION),
    kind: z.literal(NODE_AGENT_CONFIG_KIND),
    clientConnection: o({
      kubeconfig: z.string().optional(),
      acceptContentTypes: z.string().optional(),
      contentType: z.string().optional(),
      qps: z.number().min(0).optional(),
      burst: z.number().int().min(0).optional(),
    }).optional(),
    logLevel: z.string().optional(),
    logFormat: z.string().optional(),
    server: o({ healthProbes: endpoint.optional(), metrics: endpoint.optional() }).optional(),
    debugging: o({
      enableProfiling: z.boolean().optional(),
      enableContentionProfiling: z.boolean().optional(),
    }).optional(),
    featureGates: z.record(z.string(), z.boolean()).optional(),
    apiServer: o({
      server: z.string().optional(),
      caBundle: base64Text.nullable().optional(),
      caFile: z.string().optional(),
    }).optional(),
    bootstrap: o({ kubeletDataVolumeSize: z.number().int().min(0).optional() }).optional(),
    controllers: o({
      operatingSystemConfig: o({
        syncPeriod: goDuration.optional(),
        syncJitterPeriod: goDuration.optional(),
        secretName: z.string().optional(),
        kubernetesVersion: semverText.nullable().optional(),
      }).optional(),
      token: o({
        syncConfigs: z
          .array(o({ secretName: z.string().default(''), path: z.string().default('') }))
          .optional(),
        syncPeriod: goDuration.optional(),
      }).optional(),
      systemdUnitCheck: o({
        syncPeriod: goDuration.optional(),
        stuckThreshold: goDuration.optional(),
      }).optional(),
    }).optional(),
  });
}

const TolerantWire = nodeAgentConfigurationWireSchema('tolerant');

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** Decodes without defaulting or validating (the Go universal decoder's conversion step). */
export function nodeAgentConfigurationFromObject(input: unknown): DecodeResult<NodeAgentConfiguration> {
  // As Go's decoder: a null member is nil or the zero value, as if it were left out.
  const parsed = TolerantWire.safeParse(withoutNullMembers(input));
  if (!parsed.success) return { ok: false, errors: fieldErrorsFromZod(parsed.error) };
  const w = parsed.data;
  const config: NodeAgentConfiguration = {
    clientConnection: { ...w.clientConnection },
    server: { ...w.server },
    apiServer: { ...w.apiServer },
    controllers: {
      operatingSystemConfig: { ...w.controllers?.operatingSystemConfig },
      token: { ...w.controllers?.token },
    },
  };
  if (w.logLevel !== undefined) config.logLevel = w.logLevel;
  if (w.logFormat !== undefined) config.logFormat = w.logFormat;
  if (w.debugging !== undefined) config.debugging = w.debugging;
  if (w.featureGates !== undefined) config.featureGates = w.featureGates;
  if (w.bootstrap !== undefined) config.bootstrap = w.bootstrap;
  if (w.controllers?.systemdUnitCheck !== undefined)
    config.controllers.systemdUnitCheck = { ...w.controllers.systemdUnitCheck };
  return { ok: true, value: config };
}

/**
 * Defaulting as gardener v1.91.4 pkg/nodeagent/apis/config/v1alpha1/defaults.go: existing values
 * are never overwritten; no validation here.
 */
export function withNodeAgentDefaults(
  input: NodeAgentConfiguration,
  contract: GardenerVersion = 'v1.91.4',
): NodeAgentConfiguration {
  const c = structuredClone(input);
  const d = NODE_AGENT_DEFAULTS;
  c.logLevel ||= d.logLevel;
  c.logFormat ||= d.logFormat;
  c.clientConnection.contentType ||= d.contentType;
  c.clientConnection.qps ||= d.qps;
  c.clientConnection.burst ||= d.burst;
  c.server.healthProbes ??= { bindAddress: '', port: 0 };
  c.server.healthProbes.port ||= d.healthProbesPort;
  c.server.metrics ??= { bindAddress: '', port: 0 };
  c.server.metrics.port ||= d.metricsPort;
  const osc = c.controllers.operatingSystemConfig;
  osc.syncPeriod ??= d.oscSyncPeriod;
  c.controllers.token.syncPeriod ??= d.tokenSyncPeriod;
  if (contract === 'v1.91.4') {
    osc.syncJitterPeriod ??= d.oscSyncJitterPeriod;
    return c;
  }
  // v1.150.0 has no jitter period (the reconciliation delay replaced it) but a unit check
  const check = c.controllers.systemdUnitCheck ?? {};
  c.controllers.systemdUnitCheck = check;
  check.syncPeriod ??= NODE_AGENT_DEFAULTS_V150.systemdUnitCheckSyncPeriod;
  check.stuckThreshold ??= NODE_AGENT_DEFAULTS_V150.systemdUnitCheckStuckThreshold;
  return c;
}

/**
 * Which contract a decoded file follows, from what it holds: only gardenlet v1.150.0 writes
 * `apiServer.caFile` and `controllers.systemdUnitCheck` (always both; gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/component.go),
 * only v1.91.4 the `caBundle`. Never from a version string.
 */
export function nodeAgentConfigurationContract(c: NodeAgentConfiguration): GardenerVersion {
  const v150 = c.apiServer.caFile !== undefined || c.controllers.systemdUnitCheck !== undefined;
  return v150 ? 'v1.150.0' : 'v1.91.4';
}

export interface LoadedNodeAgentConfiguration {
  readonly config: NodeAgentConfiguration;
  readonly contract: GardenerVersion;
}

/** Read a config file's text as the agent of its contract does: decode, default, validate. */
export function loadNodeAgentConfigurationOfContract(
  text: string,
): DecodeResult<LoadedNodeAgentConfiguration> {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    return { ok: false, errors: [{ type: 'Invalid', field: '', detail: (e as Error).message }] };
  }
  const decoded = nodeAgentConfigurationFromObject(raw);
  if (!decoded.ok) return decoded;
  const contract = nodeAgentConfigurationContract(decoded.value);
  const config = withNodeAgentDefaults(decoded.value, contract);
  const errors = validateNodeAgentConfiguration(config, contract);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: { config, contract } };
}

/** Read a config file's text as the node agent does: decode, default, validate. */
export function loadNodeAgentConfiguration(text: string): DecodeResult<NodeAgentConfiguration> {
  const loaded = loadNodeAgentConfigurationOfContract(text);
  return loaded.ok ? { ok: true, value: loaded.value.config } : loaded;
}

function durationText(value: number | undefined): string | undefined {
  return value === undefined ? undefined : formatGoDuration(value);
}

/** The Go-shaped object: non-omitempty zero values present, omitempty ones left out. */
export function nodeAgentConfigurationToWire(c: NodeAgentConfiguration): Record<string, unknown> {
  const osc = c.controllers.operatingSystemConfig;
  const token = c.controllers.token;
  const endpoint = (e: ServerEndpoint | undefined) => e && { bindAddress: e.bindAddress, port: e.port };
  return {
    apiVersion: NODE_AGENT_CONFIG_API_VERSION,
    kind: NODE_AGENT_CONFIG_KIND,
    apiServer: { server: c.apiServer.server ?? '', caBundle: c.apiServer.caBundle ?? null },
    bootstrap: c.bootstrap && { kubeletDataVolumeSize: c.bootstrap.kubeletDataVolumeSize },
    clientConnection: {
      acceptContentTypes: c.clientConnection.acceptContentTypes ?? '',
      burst: c.clientConnection.burst ?? 0,
      contentType: c.clientConnection.contentType ?? '',
      kubeconfig: c.clientConnection.kubeconfig ?? '',
      qps: c.clientConnection.qps ?? 0,
    },
    controllers: {
      operatingSystemConfig: {
        syncPeriod: durationText(osc.syncPeriod),
        syncJitterPeriod: durationText(osc.syncJitterPeriod),
        secretName: osc.secretName ?? '',
        kubernetesVersion: osc.kubernetesVersion ? formatSemVer(osc.kubernetesVersion) : null,
      },
      token: {
        syncConfigs: token.syncConfigs?.length ? token.syncConfigs.map((s) => ({ ...s })) : undefined,
        syncPeriod: durationText(token.syncPeriod),
      },
    },
    debugging: c.debugging && { ...c.debugging },
    featureGates:
      c.featureGates && Object.keys(c.featureGates).length > 0 ? { ...c.featureGates } : undefined,
    logFormat: c.logFormat ?? '',
    logLevel: c.logLevel ?? '',
    server: { healthProbes: endpoint(c.server.healthProbes), metrics: endpoint(c.server.metrics) },
  };
}

/** The bytes gardenlet writes into `/var/lib/gardener-node-agent/config.yaml` (S-TV-10). */
export function encodeNodeAgentConfiguration(c: NodeAgentConfiguration): string {
  return stringifyYaml(nodeAgentConfigurationToWire(c));
}
