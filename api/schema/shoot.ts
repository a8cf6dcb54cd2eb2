/**
 * The part of a Shoot (core.gardener.cloud/v1beta1) that node configuration depends on. Read from
 * the Cluster object tolerantly: a Shoot written by a newer Gardener carries fields we do not
 * model, and they are ignored, never fatal.
 */
import * as z from 'zod';
import { kubeletConfigSchema, QuantityText } from './kubelet-config.js';
import { objectMetaSchema } from './object-meta.js';
import { objectOf, rawObject, type Strictness } from './strictness.js';

export function shootSchemas(mode: Strictness) {
  const o = <S extends z.ZodRawShape>(shape: S) => objectOf(mode, shape);
  const KubeletConfig = kubeletConfigSchema(mode);

  const Worker = o({
    name: z.string().min(1),
    machine: o({
      type: z.string(),
      image: o({
        name: z.string().min(1),
        version: z.string().optional(),
        providerConfig: rawObject().optional(),
      }).optional(),
      architecture: z.string().optional(),
    }),
    cri: o({
      name: z.string(),
      containerRuntimes: z.array(o({ type: z.string(), providerConfig: rawObject().optional() })).optional(),
    }).optional(),
    kubernetes: o({ version: z.string().optional(), kubelet: KubeletConfig.optional() }).optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
    taints: z.array(o({ key: z.string(), value: z.string().optional(), effect: z.string() })).optional(),
    zones: z.array(z.string()).optional(),
    minimum: z.number().int().optional(),
    maximum: z.number().int().optional(),
    volume: o({ type: z.string().optional(), size: QuantityText }).optional(),
    dataVolumes: z
      .array(
        o({
          name: z.string(),
          type: z.string().optional(),
          size: QuantityText,
          encrypted: z.boolean().optional(),
        }),
      )
      .optional(),
    kubeletDataVolumeName: z.string().optional(),
    sysctls: z.record(z.string(), z.string()).optional(),
    caBundle: z.string().optional(),
    systemComponents: o({ allow: z.boolean() }).optional(),
    providerConfig: rawObject().optional(),
    /** Since gardener v1.113.0: `AutoRollingUpdate` (Go's zero: unset), `AutoInPlaceUpdate`, `ManualInPlaceUpdate`. */
    updateStrategy: z.string().optional(),
  });

  /** A credentials rotation's status: the times the v1.150.0 OSC key hashes. */
  const Rotation = o({
    lastInitiationTime: z.string().optional(),
    pendingWorkersRollouts: z
      .array(o({ name: z.string(), lastInitiationTime: z.string().optional() }))
      .optional(),
  });

  const Shoot = o({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: objectMetaSchema(mode),
    spec: o({
      cloudProfileName: z.string().optional(),
      purpose: z.string().optional(),
      kubernetes: o({
        version: z.string(),
        kubelet: KubeletConfig.optional(),
        kubeProxy: o({ mode: z.string().optional(), enabled: z.boolean().optional() }).optional(),
        kubeControllerManager: o({ nodeMonitorGracePeriod: z.string().optional() }).optional(),
      }),
      networking: o({
        type: z.string().optional(),
        ipFamilies: z.array(z.enum(['IPv4', 'IPv6'])).optional(),
        nodes: z.string().optional(),
        pods: z.string().optional(),
        services: z.string().optional(),
      }).optional(),
      provider: o({
        type: z.string(),
        workers: z.array(Worker).default([]),
        workersSettings: o({ sshAccess: o({ enabled: z.boolean() }).optional() }).optional(),
      }),
      systemComponents: o({ nodeLocalDNS: o({ enabled: z.boolean() }).optional() }).optional(),
      hibernation: o({ enabled: z.boolean().optional() }).optional(),
    }),
    status: o({
      technicalID: z.string().optional(),
      credentials: o({
        rotation: o({
          certificateAuthorities: Rotation.optional(),
          serviceAccountKey: Rotation.optional(),
        }).optional(),
      }).optional(),
    }).optional(),
  });

  return { Shoot, Worker, KubeletConfig };
}

export const TolerantShoot = shootSchemas('tolerant');
export const StrictShoot = shootSchemas('strict');

export type Shoot = z.output<typeof StrictShoot.Shoot>;
export type Worker = z.output<typeof StrictShoot.Worker>;
