/**
 * What protects the service from its clients, and browsers from its answers: timeouts, security
 * headers for a JSON API, a per-client rate limit (src/http/rate-limit.ts), and load shedding when the
 * event loop is saturated (@fastify/under-pressure), configured here in one place.
 */
import { performance } from 'node:perf_hooks';
import underPressure from '@fastify/under-pressure';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { TokenService } from '../auth/tokens.js';
import type { Config } from '../config.js';
import { send, statusText, refusal } from './errors.js';
import type { RateLimit } from './rate-limit.js';
import { registerRateLimit, runFirst } from './rate-limit.js';

/**
 * What every answer carries, from helmet's set with its values, as far as it concerns a JSON answer:
 * it may load nothing and be framed by nobody (CSP), is never sniffed as anything but JSON, and is
 * reached over HTTPS once a browser has seen HTTPS (heeded over HTTPS only, which the proxy in front
 * provides). A fixed set in one hook rather than @fastify/helmet, which builds helmet's middleware
 * anew on every request (docs/adr/0004-operations.md).
 */
export const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
} as const;

/**
 * The rest of helmet's set, for the pages a browser shows as documents (/docs): they concern
 * documents alone (opener, referrer of the requests a page makes, framing in browsers older than
 * CSP's frame-ancestors, no-cors embedding of a response a cookie would authorise), so JSON answers,
 * read by programs with a bearer token, go without them; each header costs every answer
 * (docs/adr/0006-hot-path.md).
 */
const DOCUMENT_HEADERS = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;

/** Where Swagger UI serves its pages. */
export const DOCS_PREFIX = '/docs';
/** The pages a browser shows as documents: the interactive documentation and the page for people. */
const DOCUMENT_PREFIXES = [DOCS_PREFIX, '/consulta'];

/**
 * Swagger UI at /docs loads its own scripts, styles and the OpenAPI document from this origin, and
 * draws images from data: URLs; this replaces the API's CSP on its pages. No
 * `upgrade-insecure-requests` (which helmet's and Swagger UI's defaults add): the service is often
 * reached over plain HTTP inside a network, where it would send the browser to an HTTPS port that does
 * not exist and leave /docs blank.
 */
export const DOCS_CSP =
  "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; form-action 'self'; frame-ancestors 'none'; " +
  "img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'";

const documentHeaders: onRequestHookHandler = (_request, reply, done) => {
  reply.headers(DOCUMENT_HEADERS);
  done();
};

/** Probes and scrapers must not be refused because clients behind their address are busy. */
export const NOT_LIMITED: ReadonlySet<string> = new Set(['/health', '/metrics']);

/** How often under-pressure measures the event-loop delay (its default), as a mean over the interval. */
export const PRESSURE_SAMPLE_MS = 1000;
/**
 * Fastify compiles every route's validator and serializer when the app gets ready: a second or more
 * of synchronous work on a slow or busy machine, measured by the load shedding as if it were load.
 * The sample holding it is discarded: pressure counts from two samples after the app is ready.
 */
export const PRESSURE_GRACE_MS = 2 * PRESSURE_SAMPLE_MS;
/** Seconds a refused client is asked to wait when the process is saturated. */
const PRESSURE_RETRY_AFTER = '5';
/** A saturated process is not also flooded with one warning per refused request. */
const PRESSURE_WARN_EVERY_MS = 10_000;

/**
 * Connections that never brought a byte (a browser's preconnect, a balancer's TCP check, a client's
 * spare connection) are closed when the app closes, as idle keep-alive connections are. Node counts
 * them neither idle nor busy: neither http.Server#close nor closeIdleConnections ends them, and a
 * close waited for each until CONNECTION_TIMEOUT_SECONDS (30 s) ran out.
 */
export function closeSilentConnections(app: FastifyInstance): void {
  const open = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.addHook('preClose', (done) => {
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
    done();
  });
}

/**
 * Timeouts of the HTTP server, so that a client that sends slowly or stops in the middle does not
 * hold a connection. Node checks the request and header timeouts every 30 s by default, which lets a
 * slow client stay well past a limit of a few seconds: checked every second instead. Headers get the
 * same limit as the whole request (Node's own default is 60 s).
 */
export function connectionLimits(config: Config) {
  const requestTimeout = config.REQUEST_TIMEOUT_SECONDS * 1000;
  return {
    requestTimeout,
    connectionTimeout: config.CONNECTION_TIMEOUT_SECONDS * 1000,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    http: { connectionsCheckingInterval: 1000, ...(requestTimeout > 0 ? { headersTimeout: requestTimeout } : {}) },
  };
}

export interface ProtectionOptions {
  readonly config: Config;
  /** Verifies bearer tokens (remembering valid ones), so the rate limit can count per user. */
  readonly tokens: TokenService;
  /** The clock the rate limit counts windows by (the app's, which tests may move). */
  readonly now?: () => Date;
}

/** What the fast path (src/http/fast-path.ts) asks of the protection: the same limit, the same pressure. */
export interface Protection {
  /** The per-client limit; null when it is off. */
  readonly rateLimit: RateLimit | null;
  /** Whether the process is past its load-shedding limit now; null when load shedding is off. */
  readonly underPressure: (() => boolean) | null;
}

export async function registerProtection(app: FastifyInstance, { config, tokens, now }: ProtectionOptions): Promise<Protection> {
  // One hook for the headers every answer carries: the request id (src/http/observe.ts) and these.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id).headers(SECURITY_HEADERS);
    done();
  });
  app.addHook('onRoute', (route) => {
    if (DOCUMENT_PREFIXES.some((prefix) => route.url === prefix || route.url?.startsWith(`${prefix}/`))) runFirst(route, documentHeaders);
  });
  const underPressure = config.MAX_EVENT_LOOP_DELAY_MS > 0 ? await registerLoadShedding(app, config.MAX_EVENT_LOOP_DELAY_MS) : null;
  // Counted per user when the request carries a valid token (many users may share one address behind
  // a gateway), else per address; before the route's bearer guard, so requests with no token or a bad
  // one are counted too.
  const rateLimit =
    config.RATE_LIMIT_MAX > 0
      ? registerRateLimit(app, {
          max: config.RATE_LIMIT_MAX,
          windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000,
          tokens,
          exempt: NOT_LIMITED,
          ...(now && { now }),
        })
      : null;
  return { rateLimit, underPressure };
}

/**
 * Past the event-loop delay limit every request but /metrics is answered 503 at once, so latency
 * stays bounded and a load balancer moves traffic elsewhere, instead of every client waiting longer.
 */
async function registerLoadShedding(app: FastifyInstance, maxEventLoopDelay: number): Promise<() => boolean> {
  let lastWarning = 0;
  let readyAt = Number.POSITIVE_INFINITY;
  app.addHook('onReady', (done) => {
    readyAt = performance.now();
    done();
  });
  await app.register(underPressure, {
    maxEventLoopDelay,
    sampleInterval: PRESSURE_SAMPLE_MS,
    pressureHandler: async (request, _reply, type, value) => {
      if (request.routeOptions.url === '/metrics' || performance.now() - readyAt < PRESSURE_GRACE_MS) return;
      const now = Date.now();
      if (now - lastWarning >= PRESSURE_WARN_EVERY_MS) {
        lastWarning = now;
        request.log.warn({ type, value, limit: maxEventLoopDelay }, 'under pressure: refusing requests with 503');
      }
      throw refusal('SERVICE_UNAVAILABLE', {}, { 'retry-after': PRESSURE_RETRY_AFTER });
    },
  });
  return () => app.isUnderPressure();
}

/**
 * Fastify's `frameworkErrors`: a URL its router cannot read (`GET /%%%`, a parameter past its length)
 * is a 400 in the contract's shape, with the request id and the headers every answer carries, which
 * the onRequest hook that adds them to other answers never ran for.
 */
export function frameworkError(_error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void send(reply.header('x-request-id', request.id).headers(SECURITY_HEADERS), 400, { detail: statusText(400) });
}

/** What a request the HTTP parser refused is answered with, by the parser's error code. */
function clientErrorStatus(code: string | undefined): number {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  return 400;
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses (a malformed request line,
 * headers too large, a body or headers too slow) never becomes a request, so no hook or handler
 * answers it. The answer is written on the socket here, in the contract's shape, with a request id
 * and the security headers, unless part of another answer went out on it already (Node's own rule).
 */
export function clientErrorHandler(newId: () => string) {
  // Fastify calls it bound to the instance, whose logger it uses.
  return function (this: { log: FastifyBaseLogger }, error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const status = clientErrorStatus(error.code);
    const id = newId();
    this.log.debug({ reqId: id, code: error.code, status }, 'client error');
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && inFlight?.headersSent !== true) {
      const body = JSON.stringify({ detail: statusText(status) });
      const headers = {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        connection: 'close',
        'x-request-id': id,
        ...SECURITY_HEADERS,
      };
      const head = Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.end(`HTTP/1.1 ${status} ${statusText(status)}\r\n${head}\r\n${body}`);
      return;
    }
    socket.destroy();
  };
}
