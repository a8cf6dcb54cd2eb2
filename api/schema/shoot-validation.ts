/**
 * What Gardener's Shoot validation (v1.91 pkg/apis/core/validation: ValidateWorker, ValidateWorkers,
 * ValidateKubeletConfig) rejects among the fields node configuration reads, plus what the objects
 * we render from them need: pool names become parts of object names and label values, sysctls
 * lines of a file. A Cluster that a Gardener API server would not have admitted is reported field
 * by field instead of being rendered into objects an API server rejects.
 */

import type { FieldError } from '../validation/field-error.js';
import {
  dns1123LabelProblems,
  labelValueProblems,
  qualifiedNameProblems,
} from '../validation/label-validation.js';
import type { KubeletConfig } from './kubelet-config.js';
import type { Shoot, Worker } from './shoot.js';

/** Gardener's maxWorkerNameLength. */
export const MAX_WORKER_NAME_LENGTH = 15;
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const POD_PIDS_LIMIT_MINIMUM = 100;

function kubeletProblems(kubelet: KubeletConfig | undefined, field: string): FieldError[] {
  if (!kubelet) return [];
  const errors: FieldError[] = [];
  const nonNegative = (name: keyof KubeletConfig) => {
    const v = kubelet[name];
    if (typeof v === 'number' && v < 0)
      errors.push({
        type: 'Invalid',
        field: `${field}.${name}`,
        value: v,
        detail: 'must be greater than or equal to 0',
      });
  };
  nonNegative('maxPods');
  nonNegative('evictionMaxPodGracePeriod');
  nonNegative('registryPullQPS');
  nonNegative('registryBurst');
  if (kubelet.podPidsLimit !== undefined && kubelet.podPidsLimit < POD_PIDS_LIMIT_MINIMUM)
    errors.push({
      type: 'Invalid',
      field: `${field}.podPidsLimit`,
      value: kubelet.podPidsLimit,
      detail: `podPIDsLimit value must be at least ${POD_PIDS_LIMIT_MINIMUM}`,
    });
  for (const name of ['imageGCHighThresholdPercent', 'imageGCLowThresholdPercent'] as const) {
    const v = kubelet[name];
    if (v !== undefined && (v < 0 || v > 100))
      errors.push({
        type: 'Invalid',
        field: `${field}.${name}`,
        value: v,
        detail: 'value must be in [0,100]',
      });
  }
  const { imageGCHighThresholdPercent: high, imageGCLowThresholdPercent: low } = kubelet;
  if (high !== undefined && low !== undefined && low >= high)
    errors.push({
      type: 'Forbidden',
      field: `${field}.imageGCLowThresholdPercent`,
      detail: 'imageGCLowThresholdPercent must be less than imageGCHighThresholdPercent',
    });
  if (kubelet.containerLogMaxFiles !== undefined && kubelet.containerLogMaxFiles < 2)
    errors.push({
      type: 'Invalid',
      field: `${field}.containerLogMaxFiles`,
      value: kubelet.containerLogMaxFiles,
      detail: 'value must be >= 2.',
    });
  return errors;
}

function taintProblems(taints: Worker['taints'], field: string): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  (taints ?? []).forEach((taint, i) => {
    const at = `${field}[${i}]`;
    for (const detail of qualifiedNameProblems(taint.key))
      errors.push({ type: 'Invalid', field: `${at}.key`, value: taint.key, detail });
    const value = taint.value ?? '';
    const valueProblems = labelValueProblems(value);
    if (valueProblems.length > 0)
      errors.push({ type: 'Invalid', field: `${at}.value`, value, detail: valueProblems.join(';') });
    if (taint.effect === '') errors.push({ type: 'Required', field: `${at}.effect`, detail: '' });
    else if (!TAINT_EFFECTS.includes(taint.effect))
      errors.push({
        type: 'NotSupported',
        field: `${at}.effect`,
        value: taint.effect,
        detail: `supported values: ${TAINT_EFFECTS.map((e) => JSON.stringify(e)).join(', ')}`,
      });
    const unique = `${taint.effect}\0${taint.key}`;
    if (seen.has(unique))
      errors.push({
        type: 'Duplicate',
        field: at,
        value: taint.key,
        detail: 'taints must be unique by key and effect pair',
      });
    seen.add(unique);
  });
  return errors;
}

function workerProblems(worker: Worker, field: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const detail of dns1123LabelProblems(worker.name))
    errors.push({ type: 'Invalid', field: `${field}.name`, value: worker.name, detail });
  if (worker.name.length > MAX_WORKER_NAME_LENGTH)
    errors.push({
      type: 'Invalid',
      field: `${field}.name`,
      value: worker.name,
      detail: `may not be more than ${MAX_WORKER_NAME_LENGTH} bytes`,
    });
  if (worker.machine.type === '')
    errors.push({ type: 'Required', field: `${field}.machine.type`, detail: 'must specify a machine type' });
  const { minimum = 0, maximum = 0 } = worker;
  if (minimum < 0)
    errors.push({
      type: 'Invalid',
      field: `${field}.minimum`,
      value: minimum,
      detail: 'minimum value must not be negative',
    });
  if (maximum < 0)
    errors.push({
      type: 'Invalid',
      field: `${field}.maximum`,
      value: maximum,
      detail: 'maximum value must not be negative',
    });
  if (maximum < minimum)
    errors.push({
      type: 'Forbidden',
      field: `${field}.maximum`,
      detail: 'maximum value must not be less than minimum value',
    });
  for (const [key, value] of Object.entries(worker.labels ?? {})) {
    for (const detail of qualifiedNameProblems(key))
      errors.push({ type: 'Invalid', field: `${field}.labels`, value: key, detail });
    for (const detail of labelValueProblems(value))
      errors.push({ type: 'Invalid', field: `${field}.labels`, value, detail });
  }
  errors.push(...taintProblems(worker.taints, `${field}.taints`));
  errors.push(...kubeletProblems(worker.kubernetes?.kubelet, `${field}.kubernetes.kubelet`));
  for (const [key, value] of Object.entries(worker.sysctls ?? {})) {
    if (/[\r\n]/.test(key) || /[\r\n]/.test(value))
      errors.push({
        type: 'Invalid',
        field: `${field}.sysctls[${key}]`,
        value,
        detail: 'key and value must be single-line (one sysctl per line of the file)',
      });
  }
  return errors;
}

/** Every problem of the shoot's node-related fields, with paths below `prefix` (e.g. `spec.shoot`). */
export function shootNodeProblems(shoot: Shoot, prefix = ''): FieldError[] {
  const at = (path: string) => (prefix ? `${prefix}.${path}` : path);
  const errors = kubeletProblems(shoot.spec.kubernetes.kubelet, at('spec.kubernetes.kubelet'));
  const names = new Set<string>();
  shoot.spec.provider.workers.forEach((worker, i) => {
    const field = at(`spec.provider.workers[${i}]`);
    errors.push(...workerProblems(worker, field));
    if (names.has(worker.name))
      errors.push({ type: 'Duplicate', field: `${field}.name`, value: worker.name, detail: '' });
    names.add(worker.name);
  });
  return errors;
}
