/**
 * The release of this project: `--version` of both executables and the tag of both images. A test
 * keeps it equal to package.json's `version`; it is a constant so that nothing reads package.json
 * at run time (the single executables have no package.json next to them).
 */
export const VERSION = '0.1.0';
