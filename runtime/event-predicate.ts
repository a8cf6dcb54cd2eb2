/**
 * Which events of a watched source enqueue, as controller-runtime's `predicate.Funcs` say it
 * (sigs.k8s.io/controller-runtime v0.17 pkg/predicate/predicate.go). Unlike there, an event kind a
 * predicate leaves out is dropped: a watch names the events it reacts to.
 */

export interface EventPredicate<T> {
  readonly create?: boolean | ((object: T) => boolean);
  readonly update?: boolean | ((previous: T, next: T) => boolean);
  readonly delete?: boolean | ((object: T) => boolean);
}

/** Every create, update and delete enqueues. */
export const ALL_EVENTS: EventPredicate<unknown> = { create: true, update: true, delete: true };

export function passesCreate<T>(p: EventPredicate<T>, object: T): boolean {
  return typeof p.create === 'function' ? p.create(object) : p.create === true;
}

export function passesUpdate<T>(p: EventPredicate<T>, previous: T, next: T): boolean {
  return typeof p.update === 'function' ? p.update(previous, next) : p.update === true;
}

export function passesDelete<T>(p: EventPredicate<T>, object: T): boolean {
  return typeof p.delete === 'function' ? p.delete(object) : p.delete === true;
}
