/**
 * What the schema cannot see but an apply would trip over halfway: base64 that does not decode,
 * image paths that leave the image, names with control characters (control-characters.ts) and
 * paths that cannot all be written (path-conflicts.ts).
 * Checked before anything is written, so a bad OSC is rejected as a whole, naming the field.
 */
import type { FieldError, OperatingSystemConfig, OscFile } from '../../api/index.js';
import { imagePathProblem } from '../registry/image-extractor.js';
import { controlCharacterProblems } from './control-characters.js';
import { base64Problem } from './file-content.js';
import { pathConflicts } from './path-conflicts.js';

function fileProblems(files: readonly OscFile[] | undefined, field: string): FieldError[] {
  const errors: FieldError[] = [];
  (files ?? []).forEach((file, i) => {
    const at = `${field}[${i}].content`;
    const inline = file.content.inline;
    if (inline?.encoding === 'b64') {
      const detail = base64Problem(inline.data);
      if (detail) errors.push({ type: 'Invalid', field: `${at}.inline.data`, detail });
    }
    const imageRef = file.content.imageRef;
    if (imageRef) {
      const detail = imagePathProblem(imageRef.filePathInImage);
      if (detail)
        errors.push({
          type: 'Invalid',
          field: `${at}.imageRef.filePathInImage`,
          detail,
          value: imageRef.filePathInImage,
        });
      if (imageRef.image === '')
        errors.push({ type: 'Required', field: `${at}.imageRef.image`, detail: 'must not be empty' });
    }
  });
  return errors;
}

export function oscContentProblems(osc: OperatingSystemConfig): FieldError[] {
  return [
    ...fileProblems(osc.spec.files, 'spec.files'),
    ...fileProblems(osc.status?.extensionFiles, 'status.extensionFiles'),
    ...controlCharacterProblems(osc),
    ...pathConflicts(osc),
  ];
}
