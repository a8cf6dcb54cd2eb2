/**
 * The API calls of the os-local controller, behind an interface of our own so the reconciler's
 * unit tests can use a fake (never a fake of Kubernetes itself). The implementation uses
 * client-node; every patch is a JSON merge patch, metadata patches carry the resourceVersion they
 * were computed from (optimistic locking), status goes through the `status` subresource.
 */
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Secret,
} from '@kubernetes/client-node';
import type { OscObject } from './decide.js';

export const OSC_GROUP = 'extensions.gardener.cloud';
export const OSC_VERSION = 'v1alpha1';
export const OSC_PLURAL = 'operatingsystemconfigs';

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

const mergePatch = () => setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function code(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

export class KubeOsLocalClient implements OsLocalClient {
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  private osc(namespace: string, name: string) {
    return { group: OSC_GROUP, version: OSC_VERSION, plural: OSC_PLURAL, namespace, name };
  }

  async getOsc(namespace: string, name: string): Promise<OscObject | undefined> {
    try {
      return (await this.custom.getNamespacedCustomObject(this.osc(namespace, name))) as OscObject;
    } catch (error) {
      if (code(error) === 404) return undefined;
      throw error;
    }
  }

  async patchOsc(namespace: string, name: string, patch: Record<string, unknown>): Promise<OscObject> {
    try {
      return (await this.custom.patchNamespacedCustomObject(
        { ...this.osc(namespace, name), body: patch },
        mergePatch(),
      )) as OscObject;
    } catch (error) {
      if (code(error) === 409) throw new ConflictError(`OperatingSystemConfig ${namespace}/${name}`);
      throw error;
    }
  }

  async patchOscStatus(
    namespace: string,
    name: string,
    patch: Record<string, unknown>,
  ): Promise<OscObject | undefined> {
    try {
      return (await this.custom.patchNamespacedCustomObjectStatus(
        { ...this.osc(namespace, name), body: patch },
        mergePatch(),
      )) as OscObject;
    } catch (error) {
      if (code(error) === 404) return undefined;
      throw error;
    }
  }

  async getSecret(namespace: string, name: string): Promise<V1Secret | undefined> {
    try {
      return await this.core.readNamespacedSecret({ namespace, name });
    } catch (error) {
      if (code(error) === 404) return undefined;
      throw error;
    }
  }

  async createSecret(secret: V1Secret): Promise<void> {
    const namespace = secret.metadata?.namespace ?? '';
    try {
      await this.core.createNamespacedSecret({ namespace, body: secret });
    } catch (error) {
      if (code(error) === 409) throw new ConflictError(`Secret ${namespace}/${secret.metadata?.name}`);
      throw error;
    }
  }

  async patchSecret(namespace: string, name: string, patch: Record<string, unknown>): Promise<void> {
    try {
      await this.core.patchNamespacedSecret({ namespace, name, body: patch }, mergePatch());
    } catch (error) {
      if (code(error) === 409) throw new ConflictError(`Secret ${namespace}/${name}`);
      throw error;
    }
  }

  async deleteSecret(namespace: string, name: string): Promise<void> {
    try {
      await this.core.deleteNamespacedSecret({ namespace, name });
    } catch (error) {
      if (code(error) !== 404) throw error;
    }
  }
}
