/** Reading an osc.yaml given on the command line; anything wrong with it is a usage error (exit 2). */
import { readFileSync } from 'node:fs';
import {
  decodeOperatingSystemConfig,
  formatFieldErrors,
  type OperatingSystemConfig,
} from '../../api/index.js';
import { oscContentProblems } from '../applier/validate-osc.js';
import { UsageError } from './exit-codes.js';

export function readText(option: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${option} ${file}: ${(e as Error).message}`);
  }
}

export function decodeOscText(option: string, file: string, text: string): OperatingSystemConfig {
  const decoded = decodeOperatingSystemConfig(text);
  const errors = decoded.ok ? oscContentProblems(decoded.value) : decoded.errors;
  if (!decoded.ok || errors.length > 0) {
    throw new UsageError(
      `${option} ${file} is not a valid OperatingSystemConfig:\n${formatFieldErrors(errors)}`,
    );
  }
  return decoded.value;
}

export function readOsc(option: string, file: string): { text: string; osc: OperatingSystemConfig } {
  const text = readText(option, file);
  return { text, osc: decodeOscText(option, file, text) };
}
