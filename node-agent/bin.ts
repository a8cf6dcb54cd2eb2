/** The executable's entry (bundled as CommonJS for a Node single executable). */
import { main } from './cli/program.js';

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
