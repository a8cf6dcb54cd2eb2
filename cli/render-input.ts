/**
 * The inputs of a render, read and checked at the boundary: the Cluster (YAML or JSON, a file or
 * `-`), its typos in the modelled parts of the Shoot (a warning, or with `--strict` an error, with
 * "did you mean"), the Kubernetes versions, and the render values. Every error names its field.
 */
import {
  type Cluster,
  DEFAULT_GARDENER_VERSION,
  decodeCluster,
  type FieldError,
  formatFieldErrors,
  type GardenerVersion,
  isSupportedKubernetesVersion,
  parseYaml,
  shootNodeProblems,
  tryParseSemVer,
  unsupportedKubernetesVersionMessage,
} from '../api/index.js';
import {
  inputErrorsFromZod,
  unknownClusterFields,
  unknownFieldError,
  unknownFieldMessage,
} from '../api/schema/unknown-fields.js';
import { zodFieldTree } from '../api/schema/zod-field-tree.js';
import { type RenderValues, RenderValuesSchema } from '../charts/values/render-values.js';
import { UsageError } from '../runtime/cli/exit-codes.js';
import { inputName, readInputFile } from '../runtime/cli/input-file.js';
import { isSystemError, systemErrorReason } from '../runtime/cli/system-error.js';

export class InputError extends UsageError {
  constructor(what: string, errors: readonly FieldError[]) {
    super(`invalid ${what}:\n${formatFieldErrors(errors)}`);
  }
}

/**
 * Why a text read as UTF-8 is not YAML or JSON text: a NUL or bytes that are not UTF-8 (read as
 * U+FFFD) mean a binary file (a gzip, an executable), which is named, never echoed.
 */
function binaryProblem(text: string): string | undefined {
  const at = text.search(/[\u0000\ufffd]/);
  if (at < 0) return undefined;
  const what = text[at] === '\u0000' ? 'a NUL byte' : 'bytes that are not UTF-8';
  const gzip = text.startsWith('\u001f\ufffd') ? ' (it looks gzip-compressed)' : '';
  return `not YAML or JSON text: ${what} at character ${at + 1}${gzip}`;
}

/** Reads a file named on the command line (`-`: standard input); unreadable is a usage error. */
export function readInput(path: string, what: string, readStdin?: () => string): string {
  let text: string;
  try {
    text = readInputFile(path, readStdin);
  } catch (e) {
    const why = isSystemError(e) ? systemErrorReason(e) : (e as Error).message;
    throw new UsageError(`cannot read ${what} ${inputName(path)}: ${why}`);
  }
  const binary = binaryProblem(text);
  if (binary) throw new UsageError(`cannot read ${what} ${inputName(path)}: ${binary}`);
  return text;
}

export function parseYamlInput(text: string, what: string): unknown {
  try {
    return parseYaml(text);
  } catch (e) {
    throw new UsageError(`invalid ${what}: not valid YAML: ${(e as Error).message}`);
  }
}

function checkVersions(cluster: Cluster, gardenerVersion: GardenerVersion): FieldError[] {
  const errors: FieldError[] = [];
  const check = (field: string, text: string | undefined) => {
    if (text === undefined) return;
    const v = tryParseSemVer(text);
    if (!v) errors.push({ type: 'Invalid', field, value: text, detail: 'not a semantic version' });
    else if (!isSupportedKubernetesVersion(v, gardenerVersion))
      errors.push({
        type: 'Invalid',
        field,
        value: text,
        detail: unsupportedKubernetesVersionMessage(text, gardenerVersion),
      });
  };
  check('spec.shoot.spec.kubernetes.version', cluster.shoot.spec.kubernetes.version);
  cluster.shoot.spec.provider.workers.forEach((w, i) => {
    check(`spec.shoot.spec.provider.workers[${i}].kubernetes.version`, w.kubernetes?.version);
  });
  return errors;
}

/** A Shoot, CloudProfile or Seed given where a Cluster belongs: say where it goes. */
function kindHint(e: FieldError): FieldError {
  if (e.field !== 'kind' || typeof e.value !== 'string') return e;
  const part = { Shoot: 'shoot', CloudProfile: 'cloudProfile', Seed: 'seed' }[e.value];
  return part
    ? {
        ...e,
        detail: `${e.detail} (a Cluster holds the ${e.value} under spec.${part}; the seed has it: kubectl get cluster <shoot namespace> -o yaml)`,
      }
    : e;
}

/**
 * A Cluster decoded as gardenlet reads it. Fields that Gardener does not know, at any depth of the
 * Cluster and its Shoot, CloudProfile and Seed, are returned as warnings, or with `strict`
 * rejected, each with the closest known name.
 */
export function decodeClusterInput(
  raw: unknown,
  what: string,
  strict: boolean,
  gardenerVersion: GardenerVersion = DEFAULT_GARDENER_VERSION,
): { cluster: Cluster; warnings: string[] } {
  const unknown = unknownClusterFields(raw, gardenerVersion);
  const decoded = decodeCluster(raw);
  const typos = unknown.map(unknownFieldError);
  // a missing field is often a misspelt one (`porvider`): name the typos beside it
  if (!decoded.ok) throw new InputError(what, [...decoded.errors.map(kindHint), ...typos]);
  if (strict && typos.length > 0) throw new InputError(what, typos);
  // what Gardener's Shoot validation and the rendered objects would reject, before rendering
  const shootErrors = [
    ...checkVersions(decoded.value, gardenerVersion),
    ...shootNodeProblems(decoded.value.shoot, 'spec.shoot'),
  ];
  if (shootErrors.length > 0) throw new InputError(what, shootErrors);
  const warnings = unknown.map((u) => `${what}: ${unknownFieldMessage(u)} (ignored; --strict rejects it)`);
  return { cluster: decoded.value, warnings };
}

export function decodeValuesInput(raw: unknown, what: string): RenderValues {
  const parsed = RenderValuesSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    throw new InputError(what, inputErrorsFromZod(parsed.error, zodFieldTree(RenderValuesSchema)));
  }
  return parsed.data;
}

/** A Cluster rendered without values gets placeholder CA bundles and no SSH keys: say so. */
export const NO_VALUES_WARNING =
  'no --values: the CA bundles are placeholders and no SSH keys are rendered, so the OSCs differ from what gardenlet renders for this shoot (pass its CA bundles and SSH public keys with --values, or --no-values to render with placeholders without this warning)';
