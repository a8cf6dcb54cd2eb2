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

/** At most this many characters of a value found are shown: binary or huge input never floods a terminal. */
const SHOWN_VALUE_LENGTH = 60;

/** A value found, as JSON (control characters escaped), cut to a readable length. */
export function shownValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  if (text.length <= SHOWN_VALUE_LENGTH) return text;
  const size = typeof value === 'string' ? `${value.length} characters` : `${text.length} characters of JSON`;
  return `${text.slice(0, SHOWN_VALUE_LENGTH)}… (${size})`;
}

export function formatFieldError(e: FieldError): string {
  const where = e.field === '' ? '<the document>' : e.field;
  const value = e.value === undefined ? '' : `: ${shownValue(e.value)}`;
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

/** zod's type names in the words of YAML and JSON: a record is an object (a map). */
const typeName = (expected: string): string => (expected === 'record' ? 'object' : expected);

/**
 * `expected number, got string` for a wrong type (and for a union of types, `expected string or
 * number, got boolean`), rather than zod's "Invalid input", so a quoted number reads as what it is.
 */
function typeMismatch(issue: z.core.$ZodIssue): { expected: string; received: string } | undefined {
  if (issue.code === 'invalid_type') {
    const received = receivedType(issue);
    return received === undefined ? undefined : { expected: typeName(issue.expected), received };
  }
  if (issue.code !== 'invalid_union') return undefined;
  const branches = issue.errors.map((branch) => branch[0]);
  if (!branches.every((b) => b?.code === 'invalid_type' && b.path.length === 0)) return undefined;
  const received = receivedType(issue) ?? receivedType(branches[0]!);
  if (received === undefined) return undefined;
  const expected = [...new Set(branches.map((b) => typeName((b as { expected: string }).expected)))].join(
    ' or ',
  );
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
    // the value found, when it is a scalar (an object or list would drown the message)
    const found =
      'input' in issue &&
      (issue.input === null || typeof issue.input !== 'object') &&
      issue.input !== undefined
        ? { value: issue.input }
        : {};
    if (issue.code === 'unrecognized_keys') {
      return {
        type: 'Forbidden',
        field,
        detail: `unknown fields ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`,
      };
    }
    if (issue.code === 'invalid_value' && /^Invalid (input|option)\b/.test(issue.message)) {
      const allowed = issue.values.map((v) => JSON.stringify(v)).join(', ');
      return { type: 'NotSupported', field, ...found, detail: `supported values: ${allowed}` };
    }
    if (issue.code === 'invalid_value') return { type: 'NotSupported', field, detail: issue.message };
    return { type: 'Invalid', field, ...found, detail: issueDetail(issue) };
  });
}

/**
 * What an issue allows, in Kubernetes' words (`must be less than or equal to 65535`), where zod's
 * own wording (`Too big: expected number to be <=65535`, `Invalid input`) would show; a message we
 * wrote ourselves (a refinement's) is kept as it is.
 */
function issueDetail(issue: z.core.$ZodIssue): string {
  const own = !/^(Invalid|Too big|Too small)\b/.test(issue.message);
  if (own) return issue.message;
  const bound = (n: number | bigint, unit: string) => `${n} ${unit}${Number(n) === 1 ? '' : 's'}`;
  switch (issue.code) {
    case 'too_big': {
      const max = issue.maximum;
      if (issue.origin === 'string') return `must have at most ${bound(max, 'character')}`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return `must have at most ${bound(max, 'item')}`;
      return issue.inclusive ? `must be less than or equal to ${max}` : `must be less than ${max}`;
    }
    case 'too_small': {
      const min = issue.minimum;
      if (issue.origin === 'string')
        return Number(min) === 1 ? 'must not be empty' : `must have at least ${bound(min, 'character')}`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return Number(min) === 1 ? 'must not be empty' : `must have at least ${bound(min, 'item')}`;
      return issue.inclusive ? `must be greater than or equal to ${min}` : `must be greater than ${min}`;
    }
    case 'invalid_format':
      return issue.format === 'regex' && 'pattern' in issue
        ? `must match ${String(issue.pattern)}`
        : `must be a valid ${issue.format}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'invalid_union':
      return 'matches none of the allowed forms';
    default:
      return issue.message.replace(/^Invalid input:?\s*/, '') || 'invalid';
  }
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
