/**
 * The flags of `gardener-osc manifests` that end up in the rendered objects: checked before
 * rendering, so a bad value is one line naming the flag (exit 2), never a stack trace from the
 * renderer or an object the API server refuses.
 */
import { dns1123LabelProblems, type FieldError } from '../api/index.js';

// the distribution reference grammar (github.com/distribution/reference, regexp.go, v0.6.0):
// [domain[:port]/]path[:tag][@digest]
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?)`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(
  `^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*(?::${TAG})?(?:@${DIGEST})?$`,
);

export function imageReferenceProblems(image: string): string[] {
  if (image.length > 255) return ['must be at most 255 characters'];
  return REFERENCE.test(image)
    ? []
    : ['not an image reference ([registry[:port]/]repository[:tag][@digest], repository in lower case)'];
}

export function manifestsFlagProblems(flags: { namespace: string; image: string }): FieldError[] {
  return [
    ...dns1123LabelProblems(flags.namespace).map(
      (detail): FieldError => ({ type: 'Invalid', field: '--namespace', value: flags.namespace, detail }),
    ),
    ...imageReferenceProblems(flags.image).map(
      (detail): FieldError => ({ type: 'Invalid', field: '--image', value: flags.image, detail }),
    ),
  ];
}
