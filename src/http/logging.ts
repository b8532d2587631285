/**
 * Where log lines go and what they may never show. JSON lines (pino) for whatever collects them;
 * coloured single lines for a person at a terminal. serve.ts decides which: buildApp never looks at
 * the terminal or the environment itself.
 */
import pretty from 'pino-pretty';
import type { Config } from '../config.js';

export interface LogOutput {
  /** Readable lines for a terminal instead of JSON. */
  readonly pretty?: boolean;
  /** Where lines are written instead of standard output (tests read them here). */
  readonly stream?: NodeJS.WritableStream;
}

/**
 * Credentials never reach a log line, whichever object a log call passes: request headers (the
 * bearer token, cookies), login bodies, issued tokens. The service's own lines (the request line,
 * errors) name none of these; the paths are the guard against a future log call that would.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'body.password',
  'password',
  'access_token',
  'token',
];

export function loggerOptions(level: Config['LOG_LEVEL'], output: LogOutput = {}) {
  const stream = output.pretty
    ? pretty({ destination: output.stream ?? 1, translateTime: 'SYS:HH:MM:ss.l', ignore: 'hostname', singleLine: true, sync: true })
    : output.stream;
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(stream === undefined ? {} : { stream }),
  };
}
