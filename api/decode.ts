/** Decoding objects read from others through a schema, with every error named by its field path. */
import type * as z from 'zod';
import { type OperatingSystemConfig, TolerantOsc } from './schema/operating-system-config.js';
import { type FieldError, fieldErrorsFromZod } from './validation/field-error.js';
import { parseYaml } from './yaml/codec.js';

export type Decoded<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

export function decodeWith<S extends z.ZodType>(schema: S, input: unknown): Decoded<z.output<S>> {
  const parsed = schema.safeParse(input);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, errors: fieldErrorsFromZod(parsed.error) };
}

/** YAML or JSON text through a schema; a syntax error is reported as an error of the whole document. */
export function decodeTextWith<S extends z.ZodType>(schema: S, text: string): Decoded<z.output<S>> {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    return { ok: false, errors: [{ type: 'Invalid', field: '', detail: (e as Error).message }] };
  }
  return decodeWith(schema, raw);
}

/** An `osc.yaml` as the node agent reads it: unknown fields (a newer gardenlet) ignored. */
export function decodeOperatingSystemConfig(text: string): Decoded<OperatingSystemConfig> {
  return decodeTextWith(TolerantOsc.OperatingSystemConfig, text);
}
