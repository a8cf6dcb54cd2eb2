/**
 * What rendering needs besides the Cluster: what gardenlet reads from its secrets manager, its
 * image vector and its own configuration (gardener v1.91.4
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go). Given as `--values FILE`; every field
 * has a documented default, so `gardener-osc render` works on a Cluster alone.
 */
import * as z from 'zod';
import { NODE_AGENT_IDENTITY } from '../../api/index.js';

export const RenderValuesSchema = z.strictObject({
  /** `https://api.<internal domain>`; default derived from the shoot's technical ID. */
  apiServerUrl: z.url({ protocol: /^https$/ }).optional(),
  caBundles: z
    .strictObject({
      /** The cluster CA (`ca` secret, `bundle.crt`). */
      cluster: z.string().min(1),
      /** Name of the secret holding it; the legacy downloader references it. */
      clusterSecretName: z.string().min(1),
      /** The kubelet CA (`ca-kubelet` secret, `bundle.crt`). */
      kubelet: z.string().min(1),
    })
    .optional(),
  /** Current (then old) SSH public keys of the `ssh-keypair` secrets. */
  sshPublicKeys: z.array(z.string().min(1)).optional(),
  images: z
    .strictObject({
      nodeAgent: z.string().min(1).optional(),
      hyperkubeRepository: z.string().min(1).optional(),
      pauseContainer: z.string().min(1).optional(),
      valitail: z.string().min(1).optional(),
      /** The v1.150.0 contract's log shipper (charts/values/images-v150.ts). */
      openTelemetryCollector: z.string().min(1).optional(),
    })
    .optional(),
  /**
   * The v1.150.0 contract's registry CA: the PEM bundle of the private container registry, what
   * gardenlet v1.150.0 reads from its image vector's `caBundle.inline` (gardener v1.150.0
   * pkg/gardenlet/operation/operation.go `RegistryCABundle`). Nodes get it as
   * `registry-ca.crt`/`registry-ca.pem`, and node init fetches it from the shoot's ConfigMap
   * `kube-system/registry-ca-bundle` before it pulls the node agent. v1.91.4 has none: unused
   * there (`gardener-osc render` warns).
   */
  registryCaBundle: z.string().min(1).optional(),
  /** Node logging (valitail), as gardenlet's shootNodeLogging decides. */
  nodeLogging: z.boolean().optional(),
  /**
   * How node agents authenticate: `node` (default), each with a client certificate naming its node,
   * limited by the controller-manager's authorizer; `serviceAccount`, the shared ServiceAccount and
   * RBAC of v1.91 (rendered byte for byte as v1.91 does).
   */
  nodeAgentIdentity: z.enum([NODE_AGENT_IDENTITY.node, NODE_AGENT_IDENTITY.serviceAccount]).optional(),
  /** CoreDNS service IP; default: the 10th address of the shoot's service network. */
  clusterDnsAddress: z.string().min(1).optional(),
});

export type RenderValues = z.output<typeof RenderValuesSchema>;

export const DEFAULT_IMAGES = {
  nodeAgent: 'europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.91.4',
  hyperkubeRepository: 'europe-docker.pkg.dev/gardener-project/releases/hyperkube',
  pauseContainer: 'registry.k8s.io/pause:3.9',
  valitail: 'europe-docker.pkg.dev/gardener-project/releases/3rd/credativ/valitail:v2.2.14',
} as const;

/** Placeholders that make an offline render self-explaining; a real landscape passes its CAs. */
export const PLACEHOLDER_CA = {
  cluster: '-----BEGIN CERTIFICATE-----\nY2x1c3Rlci1jYQ==\n-----END CERTIFICATE-----\n',
  clusterSecretName: 'ca-bundle',
  kubelet: '-----BEGIN CERTIFICATE-----\na3ViZWxldC1jYQ==\n-----END CERTIFICATE-----\n',
} as const;

/** Gardener's image string: `repo:tag`, `repo@sha256:...`, or the bare repository. */
export function imageString(repository: string, tag: string | undefined): string {
  if (!tag) return repository;
  return tag.startsWith('sha256:') ? `${repository}@${tag}` : `${repository}:${tag}`;
}
