/**
 * Strict out, tolerant in: what we render is checked with strict objects (an unknown field is a bug
 * of ours), what we read from others (a newer gardenlet, a Shoot with fields we do not model) with
 * objects that drop unknown fields. Every schema is built once per mode from the same shape.
 */
import * as z from 'zod';

export type Strictness = 'strict' | 'tolerant';

export function objectOf<S extends z.ZodRawShape>(mode: Strictness, shape: S): z.ZodObject<S, z.core.$strip> {
  return (mode === 'strict' ? z.strictObject(shape) : z.object(shape)) as unknown as z.ZodObject<
    S,
    z.core.$strip
  >;
}

export const PRESERVE_UNKNOWN_FIELDS = 'x-kubernetes-preserve-unknown-fields';

/** An embedded or raw object (RawExtension): kept as it is, never pruned by the API server. */
export function rawObject(description?: string) {
  return z
    .record(z.string(), z.unknown())
    .meta({ [PRESERVE_UNKNOWN_FIELDS]: true, ...(description ? { description } : {}) });
}

/**
 * A field of a non-pointer Go type (no `omitempty` pointer): in tolerant mode a missing or null
 * value reads as Go's zero value, as Go's decoder leaves it. Strict mode requires the field.
 */
export function goValue<S extends z.ZodType>(mode: Strictness, schema: S, zero: unknown) {
  if (mode === 'strict') return schema;
  return z.preprocess((v) => (v === undefined || v === null ? zero : v), schema) as unknown as S;
}

/**
 * A pointer, slice or map field (Go's nil): optional; in tolerant mode `null` reads as absent, as
 * Go's decoder reads JSON null into a nil pointer.
 */
export function goOptional<S extends z.ZodType>(mode: Strictness, schema: S) {
  if (mode === 'strict') return schema.optional();
  return z.preprocess((v) => (v === null ? undefined : v), schema.optional()) as unknown as z.ZodOptional<S>;
}

/**
 * Go's decoder reads `null` into a pointer, slice or map as nil and into anything else as its zero
 * value: for a document without raw (pass-through) fields, dropping null members before a tolerant
 * schema gives the same meaning, since an absent field is nil or zero there too.
 */
export function withoutNullMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullMembers);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNullMembers(v)]),
  );
}
