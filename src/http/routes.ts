/**
 * The routing table: every route of the service is registered here, from the registry for the
 * record sets. Wrong methods on a known path answer 405 with Allow, as the original does.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions, onRequestHookHandler } from 'fastify';
import { recordSets } from '../record-sets/index.js';
import type { Store } from '../store/store.js';
import type { ResponseCache } from './cache.js';
import { sendCached, serveCached } from './cache.js';
import { methodNotAllowed } from './errors.js';
import type { StoreTimer } from './observe.js';
import type { ParamSpec, Parsed } from './params.js';
import { parseParams, partSchemas } from './params.js';
import { recordRoutes } from './records.js';

/** Decorated on the app when CORS is configured. */
export const CORS_PREFLIGHT = 'corsPreflight';

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

const errorResponses = {
  401: { description: 'Not authenticated, or the token is not valid', $ref: 'ErrorMessage#' },
  422: { description: 'Validation Error', $ref: 'HTTPValidationError#' },
};

/** What every protected, cached route needs. */
export interface ProtectedContext {
  readonly store: () => Store;
  /** The hook that protects a business route; one place decides what protection means. */
  readonly protect: onRequestHookHandler;
  readonly cache: ResponseCache;
}

export interface RouteContext extends ProtectedContext {
  readonly timer: StoreTimer;
}

/** Registers a route and, for the methods it does not serve, a 405 that names the ones it does. */
export function routeWithAllow(app: FastifyInstance, route: RouteOptions & { method: 'GET' | 'POST' }): void {
  app.route(route);
  const allowed = route.method === 'GET' ? ['GET', 'HEAD'] : [route.method];
  // With CORS on, OPTIONS belongs to the preflight answer.
  const taken = app.hasDecorator(CORS_PREFLIGHT) ? [...allowed, 'OPTIONS'] : allowed;
  app.route({
    method: ALL_METHODS.filter((m) => !taken.includes(m)),
    url: route.url,
    schema: { hide: true },
    handler: methodNotAllowed(allowed),
  });
}

/** A protected, cached GET: what differs from one such route to another. */
export interface ProtectedGet<P> {
  readonly url: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly params: readonly ParamSpec[];
  /** Responses besides the 401 and 422 every protected route documents; 200 is required. */
  readonly responses: Readonly<Record<number, Readonly<Record<string, unknown>> | undefined>>;
  /** The request's normalised question: equal questions share a cached answer. */
  readonly parse: (request: FastifyRequest) => P;
  readonly answer: (store: Store, question: P) => Promise<unknown>;
}

/** Registers a GET behind the bearer guard whose answers are served from the cache, as every business route is. */
export function protectedGet<P>(app: FastifyInstance, ctx: ProtectedContext, route: ProtectedGet<P>): void {
  routeWithAllow(app, {
    method: 'GET',
    url: route.url,
    onRequest: [ctx.protect, serveCached(ctx.cache, ctx.store)],
    schema: {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      security: [{ HTTPBearer: [] }],
      ...partSchemas(route.params),
      response: { ...route.responses, ...errorResponses },
    },
    handler: async (request, reply) => {
      const question = route.parse(request);
      const store = ctx.store();
      const key = `${route.operationId}?${JSON.stringify(question)}`;
      return sendCached(reply, ctx.cache, store, key, () => route.answer(store, question));
    },
  });
}

/** Path and query parameters parsed by their declarations (src/http/params.ts). */
export const parseDeclared =
  (params: readonly ParamSpec[]) =>
  (request: FastifyRequest): Parsed =>
    parseParams(params, request.params as Record<string, unknown>, request.query as Record<string, unknown>);

export function registerRecordRoutes(app: FastifyInstance, ctx: RouteContext): void {
  for (const route of recordRoutes(recordSets)) {
    protectedGet(app, ctx, {
      url: route.url,
      operationId: route.operationId,
      summary: route.summary,
      tag: route.tag,
      params: route.params,
      responses: {
        200: { description: 'Successful Response', ...route.response },
        ...(route.kind === 'lookup' ? { 404: { description: 'No record with this identifier', $ref: 'ErrorMessage#' } } : {}),
      },
      // Parsed parameters are normalised (fraction digits, upper-case codes, defaults).
      parse: parseDeclared(route.params),
      answer: (store, params) => ctx.timer.time(route.tag, route.kind, () => route.run(store, params)),
    });
  }
}
