/**
 * The API calls of the os-local controller, behind an interface of our own so the reconciler's
 * unit tests can use a fake (never a fake of Kubernetes itself). The implementation uses the
 * seed's KubeClient; every patch is a JSON merge patch, metadata patches carry the resourceVersion
 * they were computed from (optimistic locking), status goes through the `status` subresource.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import type { OscObject } from './decide.js';

/** The object changed since it was read (HTTP 409): read it again and decide again. */
export class ConflictError extends Error {
  constructor(what: string) {
    super(`${what} changed meanwhile (conflict), retrying with a fresh copy`);
    this.name = 'ConflictError';
  }
}

export interface OsLocalClient {
  /** The live OSC, undefined when it is gone. */
  getOsc(namespace: string, name: string): Promise<OscObject | undefined>;
  /** Merge patch of the object (metadata); throws ConflictError when `resourceVersion` is outdated. */
  patchOsc(namespace: string, name: string, patch: Record<string, unknown>): Promise<OscObject>;
  /** Merge patch of the status subresource; undefined when the OSC is gone. */
  patchOscStatus(
    namespace: string,
    name: string,
    patch: Record<string, unknown>,
  ): Promise<OscObject | undefined>;
  getSecret(namespace: string, name: string): Promise<V1Secret | undefined>;
  createSecret(secret: V1Secret): Promise<void>;
  patchSecret(namespace: string, name: string, patch: Record<string, unknown>): Promise<void>;
  /** Deletes the secret; a secret that is already gone is fine. */
  deleteSecret(namespace: string, name: string): Promise<void>;
}

/** The OsLocalClient over the seed's API: 404 and 409 as the interface says. */
export class KubeOsLocalClient implements OsLocalClient {
  constructor(
    private readonly client: Pick<KubeClient, 'getIfExists' | 'mergePatch' | 'create' | 'delete'>,
  ) {}

  getOsc(namespace: string, name: string): Promise<OscObject | undefined> {
    return this.client.getIfExists<OscObject>(RESOURCE.operatingSystemConfig, { namespace, name });
  }

  async patchOsc(namespace: string, name: string, patch: Record<string, unknown>): Promise<OscObject> {
    try {
      return await this.client.mergePatch<OscObject>(
        RESOURCE.operatingSystemConfig,
        { namespace, name },
        patch,
      );
    } catch (error) {
      if (isApiStatus(error, 409)) throw new ConflictError(`OperatingSystemConfig ${namespace}/${name}`);
      throw error;
    }
  }

  async patchOscStatus(
    namespace: string,
    name: string,
    patch: Record<string, unknown>,
  ): Promise<OscObject | undefined> {
    try {
      return await this.client.mergePatch<OscObject>(
        RESOURCE.operatingSystemConfig,
        { namespace, name },
        patch,
        {
          subresource: 'status',
        },
      );
    } catch (error) {
      if (isApiStatus(error, 404)) return undefined;
      throw error;
    }
  }

  getSecret(namespace: string, name: string): Promise<V1Secret | undefined> {
    return this.client.getIfExists<V1Secret>(RESOURCE.secret, { namespace, name });
  }

  async createSecret(secret: V1Secret): Promise<void> {
    try {
      await this.client.create(RESOURCE.secret, secret);
    } catch (error) {
      if (isApiStatus(error, 409))
        throw new ConflictError(`Secret ${secret.metadata?.namespace}/${secret.metadata?.name}`);
      throw error;
    }
  }

  async patchSecret(namespace: string, name: string, patch: Record<string, unknown>): Promise<void> {
    try {
      await this.client.mergePatch(RESOURCE.secret, { namespace, name }, patch);
    } catch (error) {
      if (isApiStatus(error, 409)) throw new ConflictError(`Secret ${namespace}/${name}`);
      throw error;
    }
  }

  async deleteSecret(namespace: string, name: string): Promise<void> {
    await this.client.delete(RESOURCE.secret, { namespace, name });
  }
}
