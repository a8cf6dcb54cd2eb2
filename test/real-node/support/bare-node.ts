/**
 * A process that owns one bare real node (no shoot, no agent) and waits to be killed: the
 * supervision tests SIGKILL it and look at what is left. Prints one JSON line once the node runs.
 */
import { join } from 'node:path';
import { envtestBinaries } from '../../../hack/landscape/envtest.js';
import { realNodeCache } from '../../../hack/real-node/cache.js';
import { RealNode } from '../../../hack/real-node/real-node.js';

const node = new RealNode({
  name: process.argv[2]!,
  cache: realNodeCache(),
  supervisor: join(envtestBinaries(), 'supervisor'),
});
node.boot().then(
  (c) => {
    process.stdout.write(
      `${JSON.stringify({ leader: c.leader, nspawnPid: c.nspawnPid, nodeDir: node.nodeDir })}\n`,
    );
    setInterval(() => undefined, 60_000);
  },
  (e: Error) => {
    process.stderr.write(`${e.stack}\n`);
    process.exit(1);
  },
);
