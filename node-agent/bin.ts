/** The executable's entry (bundled as CommonJS for a Node single executable, compiled for the npm bin). */
import './heap.js';
import './zod-jitless.js';
import { main } from './cli/program.js';

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
