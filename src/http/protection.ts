/**
 * What protects the service from its clients, and browsers from its answers: timeouts, security
 * headers for a JSON API, a per-client rate limit (@fastify/rate-limit), and load shedding when the
 * event loop is saturated (@fastify/under-pressure), configured here in one place.
 */
import { performance } from 'node:perf_hooks';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TokenService } from '../auth/tokens.js';
import type { Config } from '../config.js';
import { HttpError } from './errors.js';

/**
 * Helmet's headers, with the values it sets, as far as they concern a JSON API: an answer may load
 * nothing, be framed, sniffed or embedded by nobody, and leaks no referrer. A fixed set in one hook
 * rather than @fastify/helmet, which builds helmet's middleware anew on every request: that cost 15 %
 * of the throughput of a cached lookup, a fixed set nothing measurable (docs/adr/0004-operations.md).
 */
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  // Heeded by browsers over HTTPS only, which the proxy in front provides.
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
} as const;

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

/** Probes and scrapers must not be refused because clients behind their address are busy. */
const NOT_LIMITED = new Set(['/health', '/metrics']);

/** How often under-pressure measures the event-loop delay (its default), as a mean over the interval. */
const PRESSURE_SAMPLE_MS = 1000;
/**
 * Fastify compiles every route's validator and serializer when the app gets ready: a second or more
 * of synchronous work on a slow or busy machine, measured by the load shedding as if it were load.
 * The sample holding it is discarded: pressure counts from two samples after the app is ready.
 */
const PRESSURE_GRACE_MS = 2 * PRESSURE_SAMPLE_MS;
/** Seconds a refused client is asked to wait when the process is saturated. */
const PRESSURE_RETRY_AFTER = '5';
/** A saturated process is not also flooded with one warning per refused request. */
const PRESSURE_WARN_EVERY_MS = 10_000;

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
}

export async function registerProtection(app: FastifyInstance, { config, tokens }: ProtectionOptions): Promise<void> {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(SECURITY_HEADERS);
    done();
  });
  if (config.MAX_EVENT_LOOP_DELAY_MS > 0) await registerLoadShedding(app, config.MAX_EVENT_LOOP_DELAY_MS);
  if (config.RATE_LIMIT_MAX > 0) await registerRateLimit(app, config, tokens);
}

/**
 * Past the event-loop delay limit every request but /metrics is answered 503 at once, so latency
 * stays bounded and a load balancer moves traffic elsewhere, instead of every client waiting longer.
 */
async function registerLoadShedding(app: FastifyInstance, maxEventLoopDelay: number): Promise<void> {
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
      throw new HttpError(503, 'Service Unavailable', { 'retry-after': PRESSURE_RETRY_AFTER });
    },
  });
}

/**
 * Counted per user when the request carries a valid token (many users may share one address behind
 * a gateway), else per address. The limiter runs before the route's bearer guard, so requests with
 * no token or a bad one are counted too; the token check is the one the guard makes, and a valid
 * token is verified only once (TokenService remembers it).
 */
async function registerRateLimit(app: FastifyInstance, config: Config, tokens: TokenService): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_SECONDS * 1000,
    cache: 10_000,
    enableDraftSpec: true,
    keyGenerator: async (request) => {
      const user = await tokenUser(request, tokens);
      return user === null ? `address ${normalizeIP(request.ip)}` : `user ${user}`;
    },
    allowList: (request) => NOT_LIMITED.has(request.routeOptions.url ?? ''),
    errorResponseBuilder: () => new HttpError(429, 'Too Many Requests'),
  });
  app.addHook('onRequest', app.rateLimit());
}

async function tokenUser(request: FastifyRequest, tokens: TokenService): Promise<string | null> {
  const match = /^bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1] === undefined ? null : tokens.verify(match[1]);
}
