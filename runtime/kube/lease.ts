/** A Lease (coordination.k8s.io/v1) as the API server sends it: its times are MicroTime strings. */
import type { V1Lease } from '@kubernetes/client-node';

export type WireLease = Omit<V1Lease, 'spec'> & {
  spec?: Omit<NonNullable<V1Lease['spec']>, 'renewTime' | 'acquireTime'> & {
    renewTime?: string;
    acquireTime?: string;
  };
};
