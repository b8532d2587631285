/**
 * The fast path: a business GET whose response is already cached, or a lookup whose parameters are
 * its path, is responded to by the HTTP server's own request listener, before Fastify makes its
 * request and reply objects, routes the URL and runs the hooks. It does what those hooks would do,
 * with the same parts: the load shedding's state, the rate limit's count and headers, the bearer
 * guard's check, the request id, the security headers, the response's own headers, the metrics and
 * the log line. Whatever it is not sure of goes on to Fastify, whose response is the reference: a
 * token never verified, a user not remembered, a client past its limit, a process under pressure or
 * closing, HEAD, a body to compress that is not compressed yet, a request with CORS to answer, a URL
 * never seen that is not a lookup, an `as_of` in any but the plain form, a lookup the route would not
 * answer with a 200. A client that holds the response already (If-None-Match) gets its 304 here too
 * (docs/adr/0006-hot-path.md).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeader, RequestListener, Server, ServerOptions, ServerResponse } from 'node:http';
import type { FastifyServerFactory, RouteOptions } from 'fastify';
import FindMyWay from 'find-my-way';
import type { Config as RouterConfig, HTTPVersion } from 'find-my-way';
import type { Datasets, VersionInForce } from '../store/datasets.js';
import type { User } from '../store/store.js';
import type { BearerGuard } from './auth.js';
import type { CachedResponse, ResponseCache } from './cache.js';
import { writeResponse, writtenFor } from './cache.js';
import type { Answered } from './observe.js';
import type { Protection } from './protection.js';
import { madeByService, rateLimitHead } from './rate-limit.js';
import { SECURITY_HEADERS } from './protection.js';
import type { DirectRoute } from './route-kinds.js';
import { asOfOf } from './route-kinds.js';

/**
 * The GET routes as Fastify's router holds them, in a router of the same kind with the same options,
 * each with its DirectRoute or null: a URL finds here the route Fastify would find (a fixed path
 * before a parameter, the same slashes, the same decoding), and its parameters.
 */
export class DirectRoutes {
  private readonly router: FindMyWay.Instance<HTTPVersion.V1>;

  constructor(options: RouterConfig<HTTPVersion.V1>) {
    this.router = FindMyWay({ ...options, defaultRoute: undefined, onBadUrl: undefined });
  }

  /** Fastify's onRoute hook: every GET route, so that precedence among them is Fastify's. */
  readonly onRoute = (route: RouteOptions): void => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('GET')) return;
    const direct = route.config?.direct ?? null;
    this.router.on('GET', route.url, () => undefined, direct);
  };

  /** The route a GET of `url` reaches when the fast path may respond to it, with its path parameters; null otherwise. */
  find(url: string): { route: DirectRoute; path: Record<string, string | undefined> } | null {
    const found = this.router.find('GET', url);
    const route = (found?.store ?? null) as DirectRoute | null;
    return route === null ? null : { route, path: found!.params };
  }
}

/** What the fast path works with: the very objects the ordinary path uses. */
export interface FastPathParts extends Protection {
  readonly cache: ResponseCache;
  readonly datasets: Datasets;
  readonly guard: BearerGuard;
  /** The request id of a request, as Fastify's genReqId gives it (one generator for both paths). */
  readonly requestId: (request: IncomingMessage) => string;
  readonly answered: (request: Answered) => void;
  /** CORS is on: a request with an Origin gets CORS headers, which only the ordinary path adds. */
  readonly cors: boolean;
  /** The routes whose misses the fast path responds to (lookups). */
  readonly routes: DirectRoutes;
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

export class FastPath {
  private parts: FastPathParts | null = null;

  /** Opens once the app has every part (the routes registered); until then every request goes on. */
  open(parts: FastPathParts): void {
    this.parts = parts;
  }

  /** From the start of closing, Fastify answers every request itself (with `Connection: close`). */
  close(): void {
    this.parts = null;
  }

  /**
   * Fastify's `serverFactory`: the HTTP/1.1 server Fastify would make, with the same options, whose
   * requests reach the fast path first.
   */
  readonly serverFactory: FastifyServerFactory<Server> = (handler, opts) => {
    const options = opts as unknown as FastifyServerOptions;
    const server = createServer(options.http ?? {}, (request, response) => {
      if (!this.serve(request, response, handler)) handler(request, response);
    });
    server.keepAliveTimeout = options.keepAliveTimeout;
    server.requestTimeout = options.requestTimeout;
    server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };

  /**
   * Responds to the request when its response is cached, or takes it on when it is a lookup to
   * compute, and nothing calls for the ordinary path; false otherwise, having written nothing. A
   * lookup taken on is responded to later, or handed to `ordinary` (Fastify) when the route would not
   * answer it with a 200. Nothing it meets is thrown at the server: a part that fails (a store that
   * cannot be read, say) leaves the request to the ordinary path, which answers it as the contract says.
   */
  serve(request: IncomingMessage, response: ServerResponse, ordinary: RequestListener): boolean {
    try {
      return this.attempt(request, response, ordinary);
    } catch {
      return response.headersSent;
    }
  }

  private attempt(request: IncomingMessage, response: ServerResponse, ordinary: RequestListener): boolean {
    const parts = this.parts;
    if (parts === null || request.method !== 'GET') return false;
    const started = performance.now();
    const headers = request.headers;
    if (parts.cors && headers.origin !== undefined) return false;
    if (parts.underPressure?.() === true) return false;
    const url = request.url ?? '';
    const inForce = this.versionInForce(parts.datasets, url);
    if (inForce === undefined) return false;
    const now = Date.now();
    const user = parts.guard.admitted(headers.authorization, now);
    if (user === null) return false;
    const found = parts.cache.byUrl(inForce.store, url, inForce.version?.version ?? '');
    if (found === undefined) return this.lookup(parts, user, inForce, request, response, ordinary, started);
    return this.write(parts, user, request, response, found.response, found.route, started, now);
  }

  /**
   * Writes `cached` to `user` (admitted by the guard) as the ordinary path would, when the client is
   * within its limit and nothing is left to compress; false, having written nothing, otherwise.
   */
  private write(
    parts: FastPathParts,
    user: User,
    request: IncomingMessage,
    response: ServerResponse,
    cached: CachedResponse,
    route: string,
    started: number,
    now = Date.now(),
  ): boolean {
    const written = writtenFor(request.method, request.headers, cached);
    if (written === undefined) return false;
    // A request the service makes of itself was counted as the client's request that made it.
    const rate = madeByService(request.headers) ? null : parts.rateLimit;
    const limit = rate === null ? null : rate.admit(rate.userKey(user.username), now);
    if (rate !== null && limit === null) return false;

    const id = parts.requestId(request);
    const head: OutgoingHttpHeader[] = ['x-request-id', id];
    for (let i = 0; i < SECURITY.length; i++) head.push(SECURITY[i]!);
    if (limit !== null) head.push(...rateLimitHead(limit));
    writeResponse(response, head, written);
    parts.answered({ id, method: 'GET', route, status: written.status, ms: performance.now() - started, user: user.username });
    return true;
  }

  /**
   * A lookup not seen before: its parameters parsed, its response computed, serialised and kept as
   * the route's handler does, with the route's own parts (its serialiser is the one Fastify compiled
   * for its 200), then written as a cached response is. A lookup the route responds to otherwise goes
   * to the ordinary path: a bad identifier at once, a failed computation (a record not found, a store
   * that cannot answer) handed over with its failure (`DirectRoute.failures`), which the handler
   * responds with without asking the store again. Only a client with a token verified before is
   * taken on.
   */
  private lookup(
    parts: FastPathParts,
    user: User,
    inForce: VersionInForce,
    request: IncomingMessage,
    response: ServerResponse,
    ordinary: RequestListener,
    started: number,
  ): boolean {
    const url = request.url!;
    const match = parts.routes.find(url);
    if (match === null) return false;
    const route = match.route;
    let parameters: unknown;
    try {
      parameters = route.parameters(match.path);
    } catch {
      return false;
    }
    const { store, version } = inForce;
    const written = (cached: CachedResponse): void => {
      let done: boolean;
      try {
        done = this.parts === parts && this.write(parts, user, request, response, cached, route.url, started);
      } catch {
        done = response.headersSent;
      }
      if (!done) ordinary(request, response);
    };
    const failed = (error: unknown): void => {
      // Fastify responds with the failure as the route would have, without asking the store again.
      route.failures.set(request, error instanceof Error ? error : new Error(String(error)));
      ordinary(request, response);
    };
    parts.cache
      .getOrCompute(store, route.cacheKey(parameters), () => route.compute(store, parameters), version?.version, { url, route: route.url })
      .then(written, failed)
      .catch(() => response.destroy());
    return true;
  }

  /**
   * The version a URL asks for: the current one, or the one in force on its `as_of` when that is
   * given once, plainly (`as_of=YYYY-MM-DD`, as a parameter of its own, nothing percent-encoded) and
   * is a date by the route's own check; undefined for anything else.
   */
  private versionInForce(datasets: Datasets, url: string): VersionInForce | undefined {
    const at = url.indexOf(AS_OF);
    if (at < 0) return datasets.current();
    const before = url[at - 1];
    const from = at + AS_OF.length;
    const end = url.indexOf('&', from);
    const date = url.slice(from, end < 0 ? undefined : end);
    // A percent-encoded name could be a second as_of to the query parser.
    if ((before !== '?' && before !== '&') || url.includes(AS_OF, from) || url.includes('%') || !PLAIN_DATE.test(date)) return undefined;
    // The route's own check: a date that is no calendar date goes to Fastify, whose 422 is never cached.
    let asOf: string | undefined;
    try {
      asOf = asOfOf({ as_of: date });
    } catch {
      return undefined;
    }
    return asOf === undefined ? undefined : datasets.on(asOf);
  }
}
