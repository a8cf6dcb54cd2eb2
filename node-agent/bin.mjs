#!/usr/bin/env node
// The package's `gardener-node-agent` executable: the compiled agent in build/ (written by
// `npm run build`). On a node the agent runs as a single executable (npm run build:node-agent).
import { existsSync } from 'node:fs';

const compiled = new URL('../build/node-agent/bin.js', import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write(
    'gardener-node-agent: the compiled agent is missing (build/node-agent/): run `npm run build`\n',
  );
  process.exit(1);
}
await import(compiled.href);
