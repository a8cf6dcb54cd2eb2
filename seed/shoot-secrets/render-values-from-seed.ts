/**
 * The render values gardenlet would use for one shoot (gardener v1.91.4
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go), built from the seed's secrets-manager
 * secrets in the shoot namespace plus what the caller knows from its own configuration (images,
 * node logging). Steps as upstream: the cluster CA is required (its `bundle.crt` and secret name),
 * the kubelet CA likewise (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go), and, when SSH access is
 * enabled, the `ssh-keypair` (current, then old public key). `apiServerUrl` stays undefined unless
 * the caller passes one, so the renderer derives `https://api.<internal domain>` itself.
 *
 * Every problem is reported (not just the first), and the result is validated against
 * RenderValuesSchema, so what this returns is exactly what `gardener-osc render --values` accepts.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { LABEL_VALUE } from '../../api/well-known/labels.js';
import { type RenderValues, RenderValuesSchema } from '../../charts/values/render-values.js';
import { selectCaBundle } from './ca-bundle.js';
import { selectSshPublicKeys } from './ssh-keys.js';

export interface SeedRenderInputs {
  /** Secrets of the shoot namespace: at least everything SECRETS_MANAGER_SELECTOR lists; others are ignored. */
  readonly secrets: readonly V1Secret[];
  /**
   * SSH access enabled for the shoot (gardener v1.91.4
   * pkg/gardenlet/operation/botanist/operatingsystemconfig.go): then the ssh-keypair is required
   * and its keys passed.
   */
  readonly sshAccessEnabled: boolean;
  readonly images?: RenderValues['images'];
  readonly nodeLogging?: boolean;
  /** Only when the caller knows better than the renderer's default. */
  readonly apiServerUrl?: string;
  readonly clusterDnsAddress?: string;
}

export type SeedRenderValues =
  | {
      ok: true;
      values: RenderValues;
      /** A CA bundle has more than one secret (rotation in progress): render, and requeue. */
      rotating: boolean;
    }
  | { ok: false; reasons: string[] };

export function renderValuesFromSeed(inputs: SeedRenderInputs): SeedRenderValues {
  const clusterCa = selectCaBundle(inputs.secrets, LABEL_VALUE.bundleForCa);
  const kubeletCa = selectCaBundle(inputs.secrets, LABEL_VALUE.bundleForKubeletCa);
  const ssh = inputs.sshAccessEnabled ? selectSshPublicKeys(inputs.secrets) : undefined;

  const reasons: string[] = [];
  if (!clusterCa.ok) reasons.push(clusterCa.reason);
  if (!kubeletCa.ok) reasons.push(kubeletCa.reason);
  if (ssh && !ssh.ok) reasons.push(`SSH access is enabled but ${ssh.reason}`);
  if (!clusterCa.ok || !kubeletCa.ok || (ssh && !ssh.ok)) return { ok: false, reasons };

  const candidate: RenderValues = {
    caBundles: {
      cluster: clusterCa.bundle,
      clusterSecretName: clusterCa.secretName,
      kubelet: kubeletCa.bundle,
    },
    ...(ssh?.ok && { sshPublicKeys: ssh.keys }),
    ...(inputs.images !== undefined && { images: inputs.images }),
    ...(inputs.nodeLogging !== undefined && { nodeLogging: inputs.nodeLogging }),
    ...(inputs.apiServerUrl !== undefined && { apiServerUrl: inputs.apiServerUrl }),
    ...(inputs.clusterDnsAddress !== undefined && { clusterDnsAddress: inputs.clusterDnsAddress }),
  };
  const parsed = RenderValuesSchema.safeParse(candidate);
  if (!parsed.success) {
    return {
      ok: false,
      reasons: parsed.error.issues.map(
        (issue) => `render values ${issue.path.join('.') || '$'}: ${issue.message}`,
      ),
    };
  }
  return { ok: true, values: parsed.data, rotating: clusterCa.rotating || kubeletCa.rotating };
}
