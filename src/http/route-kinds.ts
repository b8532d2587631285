/**
 * The kinds of route the service has, each registered one way: an open GET or POST (wrong methods on
 * its path answer 405 with Allow, as the original does) and a protected, cached GET (every business
 * route). Which URL is which kind is the routing table's business (routes.ts).
 */
import type { FastifyInstance, FastifyRequest, RouteOptions, onRequestHookHandler } from 'fastify';
import type { Store } from '../store/store.js';
import type { ResponseCache } from './cache.js';
import { sendCached, serveCached } from './cache.js';
import { methodNotAllowed } from './errors.js';
import type { ParamSpec, Parsed } from './params.js';
import { parseParams, partSchemas } from './params.js';

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

/** An open route as the routing table pairs it with its URL and method. */
export type OpenRoute = Omit<RouteOptions, 'url' | 'method'>;

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

/** A protected, cached GET: what differs from one such route to another (its URL is in the routing table). */
export interface ProtectedGet<P> {
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly params: readonly ParamSpec[];
  /** Responses besides the 401 and 422 every protected route documents; 200 is required. */
  readonly responses: Readonly<Record<number, Readonly<Record<string, unknown>> | undefined>>;
  /** The request's normalised question: equal questions share a cached answer. */
  readonly parse: (request: FastifyRequest) => P;
  readonly answer: (store: Store, question: P) => Promise<unknown>;
  /** Schemas the responses refer to that no other route brings. */
  readonly schemas?: readonly Readonly<Record<string, unknown>>[];
}

/** Registers a GET behind the bearer guard whose answers are served from the cache, as every business route is. */
export function protectedGet<P>(app: FastifyInstance, ctx: ProtectedContext, url: string, route: ProtectedGet<P>): void {
  for (const schema of route.schemas ?? []) app.addSchema(schema);
  routeWithAllow(app, {
    method: 'GET',
    url,
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
