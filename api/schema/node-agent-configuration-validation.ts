/**
 * Validation of a defaulted NodeAgentConfiguration with Gardener's field paths (gardener v1.91.4
 * pkg/nodeagent/apis/config/validation/validation.go; v1.150.0's adds `systemdUnitCheck` and the
 * CA file). The types and the decoding: node-agent-configuration.ts.
 */
import { formatGoDuration } from '../duration.js';
import type { GardenerVersion } from '../gardener-version.js';
import { isSupportedKubernetesVersion, unsupportedKubernetesVersionMessage } from '../kubernetes-versions.js';
import { formatSemVer } from '../semver.js';
import type { FieldError } from '../validation/field-error.js';
import { PATH } from '../well-known/paths.js';
import {
  LOG_FORMATS,
  LOG_LEVELS,
  MIN_STUCK_THRESHOLD,
  MIN_SYNC_PERIOD,
  NODE_AGENT_TOKEN_SYNC,
  type NodeAgentConfiguration,
  type TokenSyncConfig,
} from './node-agent-configuration-types.js';

const OSC_PATH = 'controllers.operatingSystemConfig';
const TOKEN_PATH = 'controllers.token';

function validatePeriod(value: number | undefined, field: string): FieldError[] {
  if (value === undefined || value < MIN_SYNC_PERIOD) {
    const shown = value === undefined ? undefined : formatGoDuration(value);
    return [{ type: 'Invalid', field, value: shown, detail: 'must be at least 15s' }];
  }
  return [];
}

/**
 * `ownToken`: whether the agent authenticates with the shared token, which it then must sync. With
 * its per-node identity (`clientConnection.kubeconfig` names the identity kubeconfig) it has no
 * shared token to sync (docs/compatibility.md I2).
 */
function validateTokenSyncConfigs(
  configs: readonly TokenSyncConfig[] | undefined,
  ownToken: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  const seenPaths = new Set<string>();
  (configs ?? []).forEach((sync, i) => {
    const at = `${TOKEN_PATH}.syncConfigs[${i}]`;
    if (!sync.secretName)
      errors.push({ type: 'Required', field: `${at}.secretName`, detail: 'must provide a secret name' });
    if (!sync.path) {
      errors.push({ type: 'Required', field: `${at}.path`, detail: 'must provide a path' });
    } else if (seenPaths.has(sync.path)) {
      errors.push({
        type: 'Duplicate',
        field: `${at}.path`,
        value: sync.path,
        detail: 'path is used by another sync config',
      });
    }
    seenPaths.add(sync.path);
  });
  const hasOwnToken = (configs ?? []).some(
    (s) => s.secretName === NODE_AGENT_TOKEN_SYNC.secretName && s.path === NODE_AGENT_TOKEN_SYNC.path,
  );
  if (ownToken && !hasOwnToken) {
    errors.push({
      type: 'Required',
      field: `${TOKEN_PATH}.syncConfigs`,
      detail: `must contain an entry for secret ${NODE_AGENT_TOKEN_SYNC.secretName} with path ${NODE_AGENT_TOKEN_SYNC.path}`,
    });
  }
  return errors;
}

function validateSystemdUnitCheck(
  check: NodeAgentConfiguration['controllers']['systemdUnitCheck'],
): FieldError[] {
  const at = 'controllers.systemdUnitCheck';
  const errors = validatePeriod(check?.syncPeriod, `${at}.syncPeriod`);
  const stuck = check?.stuckThreshold;
  if (stuck !== undefined && stuck < MIN_STUCK_THRESHOLD)
    errors.push({
      type: 'Invalid',
      field: `${at}.stuckThreshold`,
      value: formatGoDuration(stuck),
      detail: 'must be at least 30s',
    });
  return errors;
}

/**
 * Validation as gardener v1.91.4 pkg/nodeagent/apis/config/validation/validation.go, with the same
 * field paths and error types; for the v1.150.0 contract as gardener v1.150.0
 * pkg/api/config/nodeagent/v1alpha1/validation/validation.go: no mandatory token of the agent's
 * own, its Kubernetes minors, the systemd unit check's periods.
 */
export function validateNodeAgentConfiguration(
  c: NodeAgentConfiguration,
  contract: GardenerVersion = 'v1.91.4',
): FieldError[] {
  const errors: FieldError[] = [];
  if (c.logLevel && !(LOG_LEVELS as readonly string[]).includes(c.logLevel)) {
    errors.push({
      type: 'NotSupported',
      field: 'logLevel',
      value: c.logLevel,
      detail: `supported values: ${LOG_LEVELS.join(', ')}`,
    });
  }
  if (c.logFormat && !(LOG_FORMATS as readonly string[]).includes(c.logFormat)) {
    errors.push({
      type: 'NotSupported',
      field: 'logFormat',
      value: c.logFormat,
      detail: `supported values: ${LOG_FORMATS.join(', ')}`,
    });
  }
  for (const gate of Object.keys(c.featureGates ?? {})) {
    errors.push({
      type: 'NotSupported',
      field: `featureGates.${gate}`,
      detail: 'the node agent registers no feature gates',
    });
  }
  const osc = c.controllers.operatingSystemConfig;
  if (!osc.secretName) {
    errors.push({
      type: 'Required',
      field: `${OSC_PATH}.secretName`,
      detail: 'must provide the name of the OSC secret',
    });
  }
  errors.push(...validatePeriod(osc.syncPeriod, `${OSC_PATH}.syncPeriod`));
  if (!osc.kubernetesVersion) {
    errors.push({
      type: 'Required',
      field: `${OSC_PATH}.kubernetesVersion`,
      detail: 'must provide a supported kubernetes version',
    });
  } else if (!isSupportedKubernetesVersion(osc.kubernetesVersion, contract)) {
    const text = formatSemVer(osc.kubernetesVersion);
    errors.push({
      type: 'Invalid',
      field: `${OSC_PATH}.kubernetesVersion`,
      value: text,
      detail: unsupportedKubernetesVersionMessage(text, contract),
    });
  }
  if (contract === 'v1.150.0') {
    errors.push(...validateTokenSyncConfigs(c.controllers.token.syncConfigs, false));
    errors.push(...validatePeriod(c.controllers.token.syncPeriod, `${TOKEN_PATH}.syncPeriod`));
    errors.push(...validateSystemdUnitCheck(c.controllers.systemdUnitCheck));
    return errors;
  }
  const ownToken = c.clientConnection.kubeconfig !== PATH.nodeAgentKubeconfig;
  errors.push(...validateTokenSyncConfigs(c.controllers.token.syncConfigs, ownToken));
  errors.push(...validatePeriod(c.controllers.token.syncPeriod, `${TOKEN_PATH}.syncPeriod`));
  return errors;
}
