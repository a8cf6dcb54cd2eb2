/** Reading an osc.yaml given on the command line; anything wrong with it is a usage error (exit 2). */
import { readFileSync } from 'node:fs';
import {
  decodeOperatingSystemConfig,
  formatFieldErrors,
  goDocumentText,
  type OperatingSystemConfig,
} from '../../api/index.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { inputName, readInputFile, readProcessStdin, STDIN } from '../../runtime/cli/input-file.js';
import { isSystemError, systemErrorReason } from '../../runtime/cli/system-error.js';
import { oscContentProblems } from '../applier/validate-osc.js';

/** The text of a file named by `option`; `-` is standard input. */
export function readText(option: string, file: string, readStdin: () => string = readProcessStdin): string {
  try {
    return readInputFile(file, readStdin);
  } catch (e) {
    const why = isSystemError(e) ? systemErrorReason(e) : (e as Error).message;
    throw new UsageError(`cannot read ${option} ${inputName(file)}: ${why}`);
  }
}

/**
 * A document Go's decoders would read (an osc.yaml, a config file): YAML must be UTF-8 (go-yaml's
 * message otherwise), JSON gets U+FFFD for invalid bytes, as upstream's agent reads them. Standard
 * input (`-`) arrives as text already.
 */
export function readDocument(
  option: string,
  file: string,
  readStdin: () => string = readProcessStdin,
): string {
  if (file === STDIN) return readText(option, file, readStdin);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    const why = isSystemError(e) ? systemErrorReason(e) : (e as Error).message;
    throw new UsageError(`cannot read ${option} ${inputName(file)}: ${why}`);
  }
  const text = goDocumentText(bytes);
  if (!text.ok) throw new UsageError(`${option} ${file}: ${text.error}`);
  return text.text;
}

export function decodeOscText(option: string, file: string, text: string): OperatingSystemConfig {
  const decoded = decodeOperatingSystemConfig(text);
  const errors = decoded.ok ? oscContentProblems(decoded.value) : decoded.errors;
  if (!decoded.ok || errors.length > 0) {
    throw new UsageError(
      `${option} ${inputName(file)} is not a valid OperatingSystemConfig:\n${formatFieldErrors(errors)}`,
    );
  }
  return decoded.value;
}

export function readOsc(
  option: string,
  file: string,
  readStdin?: () => string,
): { text: string; osc: OperatingSystemConfig } {
  const text = readDocument(option, file, readStdin);
  return { text, osc: decodeOscText(option, file, text) };
}
