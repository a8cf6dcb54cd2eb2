/**
 * Files taken out of container images (OSC `imageRef` files, gardener v1.91.4
 * pkg/nodeagent/controller/operatingsystemconfig/reconciler.go,
 * pkg/nodeagent/registry/containerd_extractor.go).
 */
export interface ImageExtractor {
  /**
   * Copies `filePathInImage` of `image` to `destination` (an absolute path on this machine, already
   * resolved under the apply root) with exactly `mode`, replacing it atomically.
   * Throws ImageFileNotFoundError when the image has no such file; stops (rejects) when the signal
   * aborts, a pull in progress included.
   */
  copyFromImage(
    image: string,
    filePathInImage: string,
    destination: string,
    mode: number,
    signal?: AbortSignal,
  ): Promise<void>;
}

export class ImageFileNotFoundError extends Error {
  constructor(
    readonly image: string,
    readonly filePathInImage: string,
  ) {
    super(`image ${image} has no file ${filePathInImage}`);
    this.name = 'ImageFileNotFoundError';
  }
}

/** A path inside an image: absolute, no `..`, no NUL, so it cannot leave the image's root. */
export function imagePathProblem(path: string): string | undefined {
  if (path.includes('\0')) return 'must not contain a NUL byte';
  if (!path.startsWith('/')) return 'must be an absolute path';
  if (path.split('/').includes('..')) return 'must not contain ".." segments';
  return undefined;
}

export function assertImagePath(image: string, path: string): void {
  const problem = imagePathProblem(path);
  if (problem) throw new Error(`filePathInImage ${JSON.stringify(path)} of image ${image} ${problem}`);
}
