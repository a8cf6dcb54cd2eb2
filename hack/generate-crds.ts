/** Writes hack/crds/*.yaml from the api/ schemas (`npm run generate:crds`). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CRD_FILES, renderCrdFile } from '../api/crds.js';

const outDir = join(import.meta.dirname, 'crds');
for (const name of Object.keys(CRD_FILES)) {
  writeFileSync(join(outDir, name), renderCrdFile(name));
  console.log(`wrote hack/crds/${name}`);
}
