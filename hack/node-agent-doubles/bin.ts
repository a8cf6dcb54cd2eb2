/** The bundle entry of the agent with test doubles (main.ts), as node-agent/bin.ts is the agent's. */
import '../../node-agent/heap.js';
import '../../node-agent/zod-jitless.js';
import { main } from './main.js';

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
