/**
 * What gardener-resource-manager writes into the shoot for ManagedResource
 * `shoot-gardener-node-agent`: each object with the MR's `spec.injectLabels`
 * (`shoot.gardener.cloud/no-cleanup: "true"`, managed-resource.ts), in both contracts.
 */
import { LABEL } from '../../api/index.js';

interface Labelled {
  readonly metadata: { readonly labels?: Record<string, string> };
}

export function withInjectedLabels<T extends Labelled>(o: T): T {
  const metadata = o.metadata as { labels?: Record<string, string> };
  return { ...o, metadata: { ...metadata, labels: { ...metadata.labels, [LABEL.noCleanup]: 'true' } } };
}
