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

/** The type zod found, from the input when it reports it, else from its message. */
function receivedType(issue: z.core.$ZodIssue): string | undefined {
  if ('input' in issue) {
    const input = issue.input;
    return input === null ? 'null' : Array.isArray(input) ? 'array' : typeof input;
  }
  return /received (\w+)/.exec(issue.message)?.[1];
}

/**
 * `expected number, got string` for a wrong type (and for a union of types, `expected string or
 * number, got boolean`), rather than zod's "Invalid input", so a quoted number reads as what it is.
 */
function typeMismatch(issue: z.core.$ZodIssue): { expected: string; received: string } | undefined {
  if (issue.code === 'invalid_type') {
    const received = receivedType(issue);
    return received === undefined ? undefined : { expected: issue.expected, received };
  }
  if (issue.code !== 'invalid_union') return undefined;
  const branches = issue.errors.map((branch) => branch[0]);
  if (!branches.every((b) => b?.code === 'invalid_type' && b.path.length === 0)) return undefined;
  const received = receivedType(issue) ?? receivedType(branches[0]!);
  if (received === undefined) return undefined;
  const expected = [...new Set(branches.map((b) => (b as { expected: string }).expected))].join(' or ');
  return { expected, received };
}

export function fieldErrorsFromZod(error: z.ZodError, prefix: readonly PropertyKey[] = []): FieldError[] {
  return error.issues.map((issue) => {
    const field = formatFieldPath([...prefix, ...issue.path]);
    const mismatch = typeMismatch(issue);
    if (mismatch?.received === 'undefined') {
      return { type: 'Required', field, detail: `expected ${mismatch.expected}` };
    }
    if (mismatch) {
      return {
        type: 'TypeInvalid',
        field,
        // a scalar is shown as it was given; an object or list would drown the message
        ...('input' in issue && (issue.input === null || typeof issue.input !== 'object')
          ? { value: issue.input }
          : {}),
        detail: `expected ${mismatch.expected}, got ${mismatch.received}`,
      };
    }
    if (issue.code === 'unrecognized_keys') {
      return { type: 'Forbidden', field, detail: issue.message };
    }
    if (issue.code === 'invalid_value') {
      return { type: 'NotSupported', field, detail: issue.message };
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
