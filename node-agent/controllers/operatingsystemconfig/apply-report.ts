/**
 * The agent's report of an apply on its own Node (docs/rollout.md): the checksum, the result
 * (Verifying, Succeeded, Failed), why, a message and the time, as the annotations of
 * `APPLY_REPORT_ANNOTATION` (written in one merge patch, so a reader never sees half a report).
 * After a successful apply the same patch also stamps upstream's `checksum/cloud-config-data` and
 * the Kubernetes version label, exactly when upstream's agent does.
 */
import {
  ANNOTATION,
  APPLY_REASON,
  type ApplyReport,
  applyReportAnnotations,
  LABEL,
  OscSecretError,
  ValidationError,
} from '../../../api/index.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../../runtime/kube/resource.js';
import { ApplyError } from '../../applier/apply-osc.js';

export type ReportContent = Omit<ApplyReport, 'time'>;

/** Why an apply threw, as a report reason: a unit command, a bad OSC, or any other step. Pure. */
export function failureReason(error: unknown): string {
  if (error instanceof ValidationError || error instanceof OscSecretError)
    return APPLY_REASON.invalidConfiguration;
  if (error instanceof ApplyError && error.failures.some((f) => /^(restart|stop) /.test(f.step)))
    return APPLY_REASON.unitCommandFailed;
  return APPLY_REASON.applyFailed;
}

/** The failure's message on one line: the steps that failed, or the error's first lines. */
export function failureMessage(error: unknown): string {
  if (error instanceof ApplyError)
    return error.failures.map((f) => `${f.step}: ${f.error.message}`).join('; ');
  const text = error instanceof Error ? error.message : String(error);
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');
}

export interface NodeStamp {
  /** upstream's `checksum/cloud-config-data` (null removes it, as a secret without checksum does). */
  readonly checksum: string | null;
  readonly kubernetesVersion: string;
}

/**
 * Writes the report (and, after an apply, upstream's stamp) on the Node in one merge patch. No
 * report without a checksum to report on (a secret without `checksum/data-script`): the stamp only.
 */
export async function writeReport(
  client: Pick<KubeClient, 'mergePatch'>,
  nodeName: string,
  report: ReportContent | undefined,
  now: Date,
  stamp?: NodeStamp,
): Promise<void> {
  const annotations: Record<string, string | null> = report ? applyReportAnnotations(report, now) : {};
  const body: { metadata: Record<string, unknown> } = { metadata: { annotations } };
  if (stamp) {
    annotations[ANNOTATION.checksumCloudConfigData] = stamp.checksum;
    body.metadata.labels = { [LABEL.kubernetesVersion]: stamp.kubernetesVersion };
  }
  await client.mergePatch(RESOURCE.node, { name: nodeName }, body);
}
