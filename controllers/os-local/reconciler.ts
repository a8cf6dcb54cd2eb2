/**
 * The os-local reconciler: Gardener's generic OperatingSystemConfig reconciler with the reference
 * rendering of components/os-local as its actuator. For an OSC of its type it
 *
 * - reconciles (Create/Reconcile/Restore): adds the finalizer, renders the user data of either
 *   purpose (secretRef files read from seed secrets in the OSC's namespace), writes it into the
 *   result secret (`osc-result-<name>`, key `cloud_config`, controlled by the OSC), records the
 *   status (`cloudConfig`, `command`/`units`/`files`, `extensionUnits`/`extensionFiles`,
 *   `lastOperation` Succeeded, `lastError` cleared, `observedGeneration`), then removes the
 *   `gardener.cloud/operation` annotation, so gardenlet's `Wait` sees the OSC ready;
 * - deletes: removes the result secret, then the finalizer;
 * - migrates: records `Migrate` Succeeded, removes its finalizer and the annotation (the secret
 *   stays: it belongs to the OSC and goes with it).
 *
 * It reads the live object first (the informer cache may lag behind its own writes) and acts only
 * when `decide` says so. A failure is recorded as `lastOperation.state: Error` with `lastError`
 * naming the field, reported as a Warning event, and thrown, so the work queue retries it with
 * backoff.
 */
import {
  ANNOTATION,
  fieldErrorsFromZod,
  formatFieldErrors,
  type OperatingSystemConfig,
  TolerantOsc,
} from '../../api/index.js';
import { inlineSecretRefs } from '../../components/os-local/secret-refs.js';
import { cloudConfigStatus, resultSecretRef, type StatusOptions } from '../../components/os-local/status.js';
import { renderUserData } from '../../components/os-local/user-data.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { EventObject, EventRecorder } from '../../runtime/events.js';
import type { Logger } from '../../runtime/logging.js';
import { ConflictError, type OsLocalClient } from './client.js';
import { decide, FINALIZER, hasFinalizer, type OperationType, type OscObject, oscType } from './decide.js';
import { errorStatus, resultSecret, secretPatch, successDescription, successStatus } from './status.js';

export interface OsLocalReconcilerOptions {
  readonly type: string;
  readonly client: OsLocalClient;
  readonly recorder?: Pick<EventRecorder, 'event'>;
  /** What the extension adds to reconcile OSCs (`status.extensionUnits`/`extensionFiles`). */
  readonly status?: StatusOptions;
  readonly now?: () => Date;
}

/** The OSC does not decode; the errors name the fields. */
export class InvalidOscError extends Error {
  constructor(name: string, errors: ReturnType<typeof fieldErrorsFromZod>) {
    super(`invalid OperatingSystemConfig ${name}:\n${formatFieldErrors(errors)}`);
    this.name = 'InvalidOscError';
  }
}

/** After a conflict the object is read again this much later (no backoff: it is not a failure). */
export const CONFLICT_RETRY_MS = 100;

/** Splits a work-queue key `<namespace>/<name>`. */
export function parseKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export class OsLocalReconciler {
  private readonly now: () => Date;

  constructor(private readonly o: OsLocalReconcilerOptions) {
    this.now = o.now ?? (() => new Date());
  }

  async reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const { namespace, name } = parseKey(key);
    const live = await this.o.client.getOsc(namespace, name);
    if (!live) return undefined;
    if (oscType(live) !== this.o.type) return undefined;
    const decision = decide(live);
    const log = ctx.log.child({ operatingSystemConfig: key });
    if (decision.action === 'none') {
      log.debug({ reason: decision.reason }, 'Nothing to do');
      return undefined;
    }
    log.info({ action: decision.action, reason: decision.reason }, 'Acting on OperatingSystemConfig');
    try {
      switch (decision.action) {
        case 'delete':
          return await this.guarded(live, 'Delete', log, () => this.delete(live));
        case 'migrate':
          return await this.guarded(live, 'Migrate', log, () => this.migrate(live));
        case 'reconcile':
          return await this.guarded(live, decision.operation, log, () =>
            this.render(live, decision.operation),
          );
      }
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      log.debug({ err: error }, 'Object changed meanwhile, reading it again');
      return { requeueAfterMs: CONFLICT_RETRY_MS };
    }
  }

  /**
   * Runs an operation; a failure of the OSC (not a conflict, which only means "read again") is
   * recorded in its status and as a Warning event before it is rethrown for the backoff.
   */
  private async guarded(
    live: OscObject,
    operation: OperationType,
    log: Logger,
    run: () => Promise<void>,
  ): Promise<undefined> {
    try {
      await run();
    } catch (error) {
      if (error instanceof ConflictError) throw error;
      const { namespace = '', name = '' } = live.metadata ?? {};
      await this.o.client
        .patchOscStatus(namespace, name, errorStatus(live, operation, this.now(), error))
        .catch((statusError: unknown) => log.warn({ err: statusError }, 'Recording the error status failed'));
      const message = error instanceof Error ? error.message : String(error);
      await this.o.recorder?.event(eventObject(live), 'Warning', `${operation}Failed`, message);
      throw error;
    }
    return undefined;
  }

  /** Create, Reconcile, Restore: user data, result secret, status, then the annotation. */
  private async render(live: OscObject, operation: OperationType): Promise<void> {
    const { namespace = '', name = '' } = live.metadata ?? {};
    const current = await this.ensureFinalizer(live);
    const osc = decodeOsc(current);
    const inlined = await inlineSecretRefs(osc, async (ref) => {
      const secret = await this.o.client.getSecret(namespace, ref.name);
      const data = secret?.data?.[ref.dataKey];
      return data === undefined ? undefined : Buffer.from(data, 'base64');
    });
    const userData = renderUserData(inlined);
    const status = cloudConfigStatus(osc, this.o.status);
    const ref = resultSecretRef(osc);
    const secretRef = { name: ref.name, namespace: ref.namespace ?? namespace };
    await this.applySecret(current, secretRef, userData);
    status.cloudConfig = { secretRef };
    const updated = await this.o.client.patchOscStatus(
      namespace,
      name,
      successStatus(current, operation, this.now(), status),
    );
    if (!updated) return;
    await this.removeOperationAnnotation(current, updated);
    await this.o.recorder?.event(
      eventObject(current),
      'Normal',
      succeededReason(operation),
      successDescription(operation),
    );
  }

  private async delete(live: OscObject): Promise<void> {
    const { namespace = '', name = '' } = live.metadata ?? {};
    const ref = resultSecretRef(decodeMeta(live));
    await this.o.client.deleteSecret(ref.namespace ?? namespace, ref.name);
    await this.o.client.patchOsc(namespace, name, {
      metadata: {
        resourceVersion: live.metadata?.resourceVersion,
        finalizers: (live.metadata?.finalizers ?? []).filter((f) => f !== FINALIZER),
      },
    });
  }

  private async migrate(live: OscObject): Promise<void> {
    const { namespace = '', name = '' } = live.metadata ?? {};
    const updated = await this.o.client.patchOscStatus(
      namespace,
      name,
      successStatus(live, 'Migrate', this.now()),
    );
    if (!updated) return;
    await this.o.client.patchOsc(namespace, name, {
      metadata: {
        resourceVersion: updated.metadata?.resourceVersion,
        finalizers: (updated.metadata?.finalizers ?? []).filter((f) => f !== FINALIZER),
        annotations: { [ANNOTATION.operation]: null },
      },
    });
    await this.o.recorder?.event(eventObject(live), 'Normal', 'Migrated', successDescription('Migrate'));
  }

  private async ensureFinalizer(live: OscObject): Promise<OscObject> {
    if (hasFinalizer(live)) return live;
    const { namespace = '', name = '' } = live.metadata ?? {};
    return this.o.client.patchOsc(namespace, name, {
      metadata: {
        resourceVersion: live.metadata?.resourceVersion,
        finalizers: [...(live.metadata?.finalizers ?? []), FINALIZER],
      },
    });
  }

  /** Creates the result secret or patches what differs; an unchanged secret costs one read. */
  private async applySecret(
    osc: OscObject,
    ref: { name: string; namespace: string },
    userData: string,
  ): Promise<void> {
    const wanted = resultSecret(osc, ref, userData);
    const existing = await this.o.client.getSecret(ref.namespace, ref.name);
    if (!existing) {
      await this.o.client.createSecret(wanted);
      return;
    }
    const patch = secretPatch(existing, wanted);
    if (patch) {
      await this.o.client.patchSecret(ref.namespace, ref.name, {
        ...patch,
        metadata: {
          ...(patch.metadata as object | undefined),
          resourceVersion: existing.metadata?.resourceVersion,
        },
      });
    }
  }

  /**
   * Removes the operation annotation we acted on, only if nothing changed since our status
   * write (resourceVersion): a request gardenlet made meanwhile (a new timestamp, another
   * operation) must not be swallowed; the conflict makes the queue read the object again.
   */
  private async removeOperationAnnotation(read: OscObject, updated: OscObject): Promise<void> {
    if (read.metadata?.annotations?.[ANNOTATION.operation] === undefined) return;
    const { namespace = '', name = '' } = read.metadata ?? {};
    await this.o.client.patchOsc(namespace, name, {
      metadata: {
        resourceVersion: updated.metadata?.resourceVersion,
        annotations: { [ANNOTATION.operation]: null },
      },
    });
  }
}

function succeededReason(operation: OperationType): string {
  return operation === 'Restore' ? 'Restored' : operation === 'Migrate' ? 'Migrated' : 'Reconciled';
}

function eventObject(osc: OscObject): EventObject {
  return {
    apiVersion: osc.apiVersion,
    kind: osc.kind ?? 'OperatingSystemConfig',
    name: osc.metadata?.name ?? '',
    namespace: osc.metadata?.namespace,
    uid: osc.metadata?.uid,
  };
}

/** The OSC through the tolerant schema (unknown fields ignored); errors name the fields. */
export function decodeOsc(raw: OscObject): OperatingSystemConfig {
  const parsed = TolerantOsc.OperatingSystemConfig.safeParse(raw);
  if (!parsed.success) {
    const { namespace, name } = raw.metadata ?? {};
    throw new InvalidOscError(`${namespace}/${name}`, fieldErrorsFromZod(parsed.error));
  }
  return parsed.data;
}

/** Enough of an OSC for `resultSecretRef` even when its spec does not decode (deletion). */
function decodeMeta(raw: OscObject): OperatingSystemConfig {
  const ref = (raw.status as { cloudConfig?: { secretRef?: { name?: unknown; namespace?: unknown } } })
    ?.cloudConfig?.secretRef;
  const secretRef =
    typeof ref?.name === 'string'
      ? { name: ref.name, ...(typeof ref.namespace === 'string' ? { namespace: ref.namespace } : {}) }
      : undefined;
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: raw.metadata?.name, namespace: raw.metadata?.namespace },
    spec: { type: oscType(raw) ?? '', purpose: 'provision' },
    ...(secretRef ? { status: { cloudConfig: { secretRef } } } : {}),
  };
}
