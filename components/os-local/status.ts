/**
 * What an OS extension writes into an OSC's status after rendering it, as upstream's generic OS
 * extension (provider-local in v1.91) does: the result secret `osc-result-<name>` (key
 * `cloud_config`), and for the `reconcile` purpose the reload command and the unit names and file
 * paths the legacy executor restarts and keeps (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/executor/executor.go). The `provision` purpose
 * gets only the result secret: its user data enables and starts its units itself.
 */
import type * as z from 'zod';
import {
  fieldErrorsFromZod,
  type OperatingSystemConfig,
  type OscFile,
  type OscStatus,
  type OscUnit,
  StrictOsc,
} from '../../api/index.js';
import { shellQuote } from '../shell-quote.js';
import { UserDataError } from './user-data.js';

/** `status.command`: how the legacy executor re-applies the reconcile user data it stored. */
export function reloadCommand(reloadConfigFilePath: string): string {
  return `/usr/bin/env bash ${shellQuote(reloadConfigFilePath)}`;
}

/**
 * The result secret of an OSC: the one its status already names, else `osc-result-<name>` in the
 * OSC's namespace (upstream `SecretObjectMetaForConfig`).
 */
export function resultSecretRef(osc: OperatingSystemConfig): { name: string; namespace?: string } {
  const existing = osc.status?.cloudConfig?.secretRef;
  if (existing) return { ...existing };
  const namespace = osc.metadata?.namespace;
  return { name: `osc-result-${osc.metadata?.name ?? ''}`, ...(namespace ? { namespace } : {}) };
}

export interface StatusOptions {
  /**
   * Units the OS extension adds on top of the OSC (`status.extensionUnits`), e.g. a drop-in for an
   * OS-provided unit. The node agent merges them into `spec.units` (gardener v1.91.4
   * pkg/nodeagent/controller/operatingsystemconfig/changes.go); written for the `reconcile` purpose
   * only, since no one reads them from a provision OSC. Default: none.
   */
  readonly extensionUnits?: readonly OscUnit[];
  /** Files the OS extension adds (`status.extensionFiles`); reconcile purpose only. Default: none. */
  readonly extensionFiles?: readonly OscFile[];
}

export type CloudConfigStatus = Pick<
  OscStatus,
  'cloudConfig' | 'extensionUnits' | 'extensionFiles' | 'command' | 'units' | 'files'
>;

/** The status fields an OS extension owns; fields without a value are left out (Go's omitempty). */
export function cloudConfigStatus(
  osc: OperatingSystemConfig,
  options: StatusOptions = {},
): CloudConfigStatus {
  const status: CloudConfigStatus = { cloudConfig: { secretRef: resultSecretRef(osc) } };
  if (osc.spec.purpose !== 'reconcile') return status;

  const extensionUnits = validated(osc, StrictOsc.Unit, options.extensionUnits, 'extensionUnits');
  const extensionFiles = validated(osc, StrictOsc.File, options.extensionFiles, 'extensionFiles');
  if (extensionUnits.length > 0) status.extensionUnits = extensionUnits;
  if (extensionFiles.length > 0) status.extensionFiles = extensionFiles;
  if (osc.spec.reloadConfigFilePath !== undefined)
    status.command = reloadCommand(osc.spec.reloadConfigFilePath);
  const units = (osc.spec.units ?? []).map((u) => u.name);
  const files = (osc.spec.files ?? []).map((f) => f.path);
  if (units.length > 0) status.units = units;
  if (files.length > 0) status.files = files;
  return status;
}

function validated<S extends typeof StrictOsc.Unit | typeof StrictOsc.File>(
  osc: OperatingSystemConfig,
  schema: S,
  items: readonly unknown[] | undefined,
  field: string,
): z.output<S>[] {
  const parsed = schema.array().safeParse(items ?? []);
  if (!parsed.success)
    throw new UserDataError(osc.metadata?.name ?? '', fieldErrorsFromZod(parsed.error, ['status', field]));
  return parsed.data as z.output<S>[];
}
