/**
 * Validation errors in the form Kubernetes and Gardener report them: a type, the field path
 * (`controllers.token.syncConfigs[1].path`), and a detail. Every boundary reports these, so a user
 * always learns which field is wrong.
 */
import type * as z from 'zod';

export type FieldErrorType =
  | 'Required'
  | 'Invalid'
  | 'Duplicate'
  | 'NotSupported'
  | 'Forbidden'
  | 'TypeInvalid';

export interface FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  readonly detail: string;
  readonly value?: unknown;
}

export function formatFieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

const TYPE_TEXT: Record<FieldErrorType, string> = {
  Required: 'Required value',
  Invalid: 'Invalid value',
  Duplicate: 'Duplicate value',
  NotSupported: 'Unsupported value',
  Forbidden: 'Forbidden',
  TypeInvalid: 'Invalid value',
};

export function formatFieldError(e: FieldError): string {
  const where = e.field === '' ? '<root>' : e.field;
  const value = e.value === undefined ? '' : `: ${JSON.stringify(e.value)}`;
  return `${where}: ${TYPE_TEXT[e.type]}${value}: ${e.detail}`;
}

export function formatFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `  - ${formatFieldError(e)}`).join('\n');
}

export function fieldErrorsFromZod(error: z.ZodError, prefix: readonly PropertyKey[] = []): FieldError[] {
  return error.issues.map((issue) => {
    const field = formatFieldPath([...prefix, ...issue.path]);
    if (issue.code === 'invalid_type' && issue.input === undefined) {
      return { type: 'Required', field, detail: issue.message };
    }
    if (issue.code === 'unrecognized_keys') {
      return { type: 'Forbidden', field, detail: issue.message };
    }
    if (issue.code === 'invalid_value') {
      return { type: 'NotSupported', field, detail: issue.message };
    }
    if (issue.code === 'invalid_type') {
      return { type: 'TypeInvalid', field, detail: issue.message };
    }
    return { type: 'Invalid', field, detail: issue.message };
  });
}

/** Thrown where a caller wants an exception; carries every error, not only the first. */
export class ValidationError extends Error {
  constructor(
    readonly what: string,
    readonly errors: readonly FieldError[],
  ) {
    super(`invalid ${what}:\n${formatFieldErrors(errors)}`);
    this.name = 'ValidationError';
  }
}
