/**
 * Structured logs with pino: one logger per process, child loggers per controller (`controller`)
 * and per object. `json` is one JSON object a line (ISO timestamps, level names); `text` is a
 * readable line for people, with the same fields.
 */
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export type LogLevel = 'debug' | 'info' | 'error' | 'warn' | 'silent';
export type LogFormat = 'json' | 'text';

export interface LoggerOptions {
  readonly name?: string;
  readonly level?: LogLevel;
  readonly format?: LogFormat;
  readonly destination?: NodeJS.WritableStream;
}

const RESERVED = new Set(['level', 'time', 'msg', 'name', 'pid', 'hostname']);

/** Renders pino's JSON lines as `2026-01-01T00:00:00.000Z INFO name: message key=value`. */
function textStream(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        const fields = Object.entries(entry)
          .filter(([k]) => !RESERVED.has(k))
          .map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v)}`)
          .join(' ');
        const name = entry.name ? `${entry.name}: ` : '';
        out.write(
          `${entry.time} ${String(entry.level).toUpperCase()} ${name}${entry.msg ?? ''}${fields ? ` ${fields}` : ''}\n`,
        );
      }
      callback();
    },
  });
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? process.stderr;
  const stream = options.format === 'text' ? textStream(destination) : destination;
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
    },
    stream as pino.DestinationStream,
  );
}

/** A logger that writes nothing, for tests and libraries used without one. */
export const silentLogger: Logger = pino({ level: 'silent' });
