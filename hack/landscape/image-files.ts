/**
 * A directory of fake images for agents run with `--images`: each image's files under its
 * directory name as node-agent/registry/directory-extractor.ts reads them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { imageDirectoryName } from '../../node-agent/registry/directory-extractor.js';

export function writeImages(dir: string, images: Record<string, Record<string, string>>): string {
  for (const [image, files] of Object.entries(images)) {
    for (const [path, content] of Object.entries(files)) {
      const file = join(dir, imageDirectoryName(image), path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }
  return dir;
}
