/** Creating landscape objects with the project's own client, optionally keeping an existing one. */
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import type { Resource } from '../../runtime/kube/resource.js';

/** An object a landscape created, for whoever removes the landscape again. */
export interface CreatedObject {
  readonly client: KubeClient;
  readonly resource: Resource;
  readonly name: string;
  readonly namespace?: string;
}

export interface CreateOptions {
  /**
   * Keep an object that exists already instead of failing (409): the demo sets its landscape up
   * again on API servers that may hold it from an earlier run.
   */
  readonly keepExisting?: boolean;
}

type Named = { readonly metadata?: { readonly name?: string; readonly namespace?: string } };

export async function createObject<T extends Named>(
  client: KubeClient,
  resource: Resource,
  object: T,
  options: CreateOptions = {},
): Promise<CreatedObject> {
  try {
    await client.create(resource, object);
  } catch (e) {
    if (!(options.keepExisting && isApiStatus(e, 409))) throw e;
  }
  return { client, resource, name: object.metadata?.name ?? '', namespace: object.metadata?.namespace };
}
