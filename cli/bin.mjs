#!/usr/bin/env node
// The package's `gardener-osc` executable: the compiled CLI in build/ (written by `npm run build`,
// which npm ci, npm start, npm test and npm pack run). Development runs the sources: npm run osc.
import { existsSync } from 'node:fs';

const compiled = new URL('../build/cli/main.js', import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write(
    'gardener-osc: the compiled CLI is missing (build/cli/main.js): run `npm run build`\n',
  );
  process.exit(1);
}
const { main } = await import(compiled.href);
process.exitCode = await main(process.argv.slice(2));
