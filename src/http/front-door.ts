/**
 * The front door: a business GET whose answer is already cached is answered by the HTTP server's own
 * request listener, before Fastify makes its request and reply objects, routes the URL and runs the
 * hooks. It does what those hooks would do, with the same parts: the load shedding's state, the
 * rate limit's count and headers, the bearer guard's check, the request id, the security headers,
 * the answer's own headers, the metrics and the log line. Whatever it is not sure of goes on to
 * Fastify, whose answer is the reference: a token never verified, a user not remembered, a client
 * past its limit, a process under pressure or closing, HEAD, a body to compress that is not
 * compressed yet, a request with CORS to answer, a URL never answered, an `as_of` in any but the
 * plain form. A client that holds the answer already (If-None-Match) gets its 304 here too
 * (docs/adr/0006-hot-path.md, steps 14 and 15).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeader, Server, ServerOptions, ServerResponse } from 'node:http';
import type { FastifyServerFactory } from 'fastify';
import type { Datasets, ServedVersion } from '../store/datasets.js';
import type { BearerGuard } from './auth.js';
import type { ResponseCache } from './cache.js';
import { writeAnswer, writtenFor } from './cache.js';
import type { Answered } from './observe.js';
import type { Protection } from './protection.js';
import { SECURITY_HEADERS } from './protection.js';

/** What the front door works with: the very objects the ordinary path uses. */
export interface FrontDoorParts extends Protection {
  readonly cache: ResponseCache;
  readonly datasets: Datasets;
  readonly guard: BearerGuard;
  /** The request id of a request, as Fastify's genReqId gives it (one generator for both paths). */
  readonly requestId: (request: IncomingMessage) => string;
  readonly answered: (request: Answered) => void;
  /** CORS is on: a request with an Origin gets CORS headers, which only the ordinary path adds. */
  readonly cors: boolean;
}

/** The options of Fastify's own HTTP/1.1 server that a server factory must apply itself. */
interface FastifyServerOptions {
  readonly http?: ServerOptions;
  readonly keepAliveTimeout: number;
  readonly requestTimeout: number;
  readonly connectionTimeout: number;
  readonly maxRequestsPerSocket?: number | null;
}

const SECURITY = Object.entries(SECURITY_HEADERS).flat();
const AS_OF = 'as_of=';
const PLAIN_DATE = /^\d{4}-\d{2}-\d{2}$/;

export class FrontDoor {
  private parts: FrontDoorParts | null = null;

  /** Opens once the app has every part (the routes registered); until then every request goes on. */
  open(parts: FrontDoorParts): void {
    this.parts = parts;
  }

  /** From the start of closing, Fastify answers every request itself (with `Connection: close`). */
  close(): void {
    this.parts = null;
  }

  /**
   * Fastify's `serverFactory`: the HTTP/1.1 server Fastify would make, with the same options, whose
   * requests reach the front door first.
   */
  readonly serverFactory: FastifyServerFactory<Server> = (handler, opts) => {
    const options = opts as unknown as FastifyServerOptions;
    const server = createServer(options.http ?? {}, (request, response) => {
      if (!this.serve(request, response)) handler(request, response);
    });
    server.keepAliveTimeout = options.keepAliveTimeout;
    server.requestTimeout = options.requestTimeout;
    server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };

  /**
   * Answers the request when its answer is cached and nothing calls for the ordinary path; false
   * otherwise, having written nothing. Nothing it meets is thrown at the server: a part that fails
   * (a store that cannot be read, say) leaves the request to the ordinary path, which answers it as
   * the contract says.
   */
  serve(request: IncomingMessage, response: ServerResponse): boolean {
    try {
      return this.attempt(request, response);
    } catch {
      return response.headersSent;
    }
  }

  private attempt(request: IncomingMessage, response: ServerResponse): boolean {
    const parts = this.parts;
    if (parts === null || request.method !== 'GET') return false;
    const started = performance.now();
    const headers = request.headers;
    if (parts.cors && headers.origin !== undefined) return false;
    if (parts.underPressure?.() === true) return false;
    const url = request.url ?? '';
    const served = this.served(parts.datasets, url);
    if (served === undefined) return false;
    const found = parts.cache.byUrl(served.store, url, served.version?.version ?? '');
    if (found === undefined) return false;
    const written = writtenFor(request.method, headers, found.answer);
    if (written === undefined) return false;
    const user = parts.guard.admitted(headers.authorization);
    if (user === null) return false;
    const limit = parts.rateLimit === null ? null : parts.rateLimit.admit(`user ${user.username}`);
    if (parts.rateLimit !== null && limit === null) return false;

    const id = parts.requestId(request);
    const head: OutgoingHttpHeader[] = ['x-request-id', id];
    for (let i = 0; i < SECURITY.length; i++) head.push(SECURITY[i]!);
    if (limit !== null) head.push('ratelimit-limit', limit.limit, 'ratelimit-remaining', limit.remaining, 'ratelimit-reset', limit.reset);
    writeAnswer(response, head, written);
    parts.answered({ id, method: 'GET', route: found.route, status: written.status, ms: performance.now() - started, user: user.username });
    return true;
  }

  /**
   * The version a URL asks for: the current one, or the one in force on its `as_of` when that is
   * given once, plainly (`as_of=YYYY-MM-DD`, as a parameter of its own, nothing percent-encoded);
   * undefined for anything else.
   */
  private served(datasets: Datasets, url: string): ServedVersion | undefined {
    const at = url.indexOf(AS_OF);
    if (at < 0) return datasets.current();
    const before = url[at - 1];
    const from = at + AS_OF.length;
    const end = url.indexOf('&', from);
    const date = url.slice(from, end < 0 ? undefined : end);
    // A percent-encoded name could be a second as_of to the query parser.
    if ((before !== '?' && before !== '&') || url.includes(AS_OF, from) || url.includes('%') || !PLAIN_DATE.test(date)) return undefined;
    return datasets.on(date);
  }
}
