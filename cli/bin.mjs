#!/usr/bin/env node
// The package's `gardener-osc` executable: the bundled CLI in build/cli-bundle/ (written by `npm run
// build`, which npm ci, npm start, npm test and npm pack run; it holds @kubernetes/client-node and
// undici, see hack/build-package.mjs). Development runs the sources: npm run osc.
import { existsSync } from 'node:fs';

const compiled = new URL('../build/cli-bundle/main.js', import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write(
    'gardener-osc: the compiled CLI is missing (build/cli-bundle/main.js): run `npm run build`\n',
  );
  process.exit(1);
}
const { main } = await import(compiled.href);
process.exitCode = await main(process.argv.slice(2));
