/**
 * An ImageExtractor over a plain directory, for tests and demos (`apply --images DIR`): the file
 * `/p` of image `I` is `DIR/<encodeURIComponent(I)>/p`. The encoding is injective and keeps `/` and
 * `:` out of the directory name, e.g. `eu.gcr.io/gardener/hyperkube:v1.28.2` is the directory
 * `eu.gcr.io%2Fgardener%2Fhyperkube%3Av1.28.2`.
 */
import { join } from 'node:path';
import { copyFileAtomic } from '../fs/copy-file.js';
import { assertImagePath, type ImageExtractor, ImageFileNotFoundError } from './image-extractor.js';

export function imageDirectoryName(image: string): string {
  const name = encodeURIComponent(image);
  // encodeURIComponent keeps dots, so these would name the images directory itself or its parent.
  if (name === '' || name === '.' || name === '..')
    throw new Error(`invalid image name ${JSON.stringify(image)}`);
  return name;
}

export class DirectoryImageExtractor implements ImageExtractor {
  constructor(readonly directory: string) {}

  async copyFromImage(
    image: string,
    filePathInImage: string,
    destination: string,
    mode: number,
    signal?: AbortSignal,
  ): Promise<void> {
    signal?.throwIfAborted();
    assertImagePath(image, filePathInImage);
    const source = join(this.directory, imageDirectoryName(image), filePathInImage);
    try {
      await copyFileAtomic(source, destination, mode);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && (e as NodeJS.ErrnoException).path === source) {
        throw new ImageFileNotFoundError(image, filePathInImage);
      }
      throw e;
    }
  }
}
