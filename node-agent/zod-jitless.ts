/**
 * zod's object schemas compile a parser of their own shape with `new Function` on first use (zod 4
 * `v4/core/schemas.js`, `$ZodObjectJIT`), and V8 keeps each one's source text and bytecode for as
 * long as the schema lives: for the agent, whose schemas live as long as the process, 34 parsers,
 * 0.12 MB of source text plus their bytecode (docs/benchmarks.md, node agent section). The agent
 * decodes a few objects an hour, so the generic path costs nothing it would notice. zod reads the
 * setting when a schema is built, so the entry imports this module before anything that builds one.
 */
import { config } from 'zod';

config({ jitless: true });
