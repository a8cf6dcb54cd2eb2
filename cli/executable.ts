/**
 * The entry of `gardener-osc` as a single executable (the controller-manager image): bundled as
 * CommonJS, the only form a Node 20 single executable runs.
 */
import { main } from './main.js';

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
