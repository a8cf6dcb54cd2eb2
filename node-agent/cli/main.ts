/**
 * Entry of `npx tsx node-agent/cli/main.ts ...`. It runs only when started as the program, found
 * via process.argv[1] because the bundle is CommonJS (no import.meta); importing it does nothing.
 */
import { main } from './program.js';

export { main } from './program.js';

if (/(^|[\\/])node-agent[\\/]cli[\\/]main\.[cm]?[jt]s$/.test(process.argv[1] ?? '')) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
