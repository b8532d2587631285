/**
 * Where log lines go and what they may never show. JSON lines (pino) for whatever collects them;
 * coloured single lines for a person at a terminal. serve.ts decides which: buildApp never looks at
 * the terminal or the environment itself.
 */
import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import type pinoPretty from 'pino-pretty';
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

/** pino-pretty, loaded only for a terminal: a service writing JSON lines never needs its modules (a twentieth of a second of a start). */
const pretty = (): typeof pinoPretty => createRequire(import.meta.url)('pino-pretty') as typeof pinoPretty;

export function loggerOptions(level: Config['LOG_LEVEL'], output: LogOutput = {}) {
  const stream = output.pretty
    ? pretty()({ destination: output.stream ?? 1, translateTime: 'SYS:HH:MM:ss.l', ignore: 'hostname', singleLine: true, sync: true })
    : output.stream;
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(stream === undefined ? {} : { stream }),
  };
}

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * A request's logger, made when the request first writes a line: pino's child logger per request
 * (Fastify's default) cost more than most hooks, and at LOG_LEVEL=warn most requests write none
 * (docs/adr/0006-hot-path.md). The line is the same: the child is made with the same bindings.
 */
class RequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  private write(level: Level, args: unknown[]): void {
    this.logger[level](...(args as Parameters<FastifyBaseLogger['info']>));
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(...args: unknown[]): void {
    this.write('silent', args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Fastify's childLoggerFactory: each request's logger made on its first line (RequestLogger). */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options);
}
