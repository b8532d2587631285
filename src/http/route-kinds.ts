/**
 * The kinds of route the service has, each registered one way: an open GET or POST (wrong methods on
 * its path answer 405 with Allow, as the original does) and a protected, cached GET (every business
 * route). Which URL is which kind is the routing table's business (routes.ts).
 */
import { Type } from '@sinclair/typebox';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, RouteGenericInterface, onRequestHookHandler } from 'fastify';
import type { Datasets } from '../store/datasets.js';
import type { Store } from '../store/store.js';
import type { ResponseCache } from './cache.js';
import { sendCached } from './cache.js';
import { RequestValidationError, methodNotAllowed, refusal } from './errors.js';
import type { OpenRoute, Read } from './contract.js';
import { typed } from './contract.js';
import type { ParamSpec } from './params.js';
import { fields, paramSchema, parseParams } from './params.js';
import { serializerOf } from './serializers.js';

/** Decorated on the app when CORS is configured. */
export const CORS_PREFLIGHT = 'corsPreflight';

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

const errorResponses = {
  422: { description: 'Validation Error', $ref: 'HTTPValidationError#' },
};

/** What every protected, cached route needs. */
export interface ProtectedContext {
  /** Which version answers a business call: the current one, or the one `as_of` names. */
  readonly datasets: Datasets;
  /** The hook that protects a business route; one place decides what protection means. */
  readonly protect: onRequestHookHandler;
  readonly cache: ResponseCache;
}

/**
 * A protected GET whose parameters are read from its path alone (and `as_of`): the fast path
 * responds to it on a miss too, with the route's own parsing, computation and serialiser
 * (src/http/fast-path.ts).
 */
export interface DirectRoute {
  /** The route's URL template, for the metrics and the log line. */
  readonly url: string;
  /** The normalised parameters of a path; throws what the route would respond with (a 422). */
  readonly parameters: (path: Readonly<Record<string, unknown>>) => unknown;
  /** The cache key of normalised parameters, as the route keys them. */
  readonly cacheKey: (parameters: unknown) => string;
  /**
   * The route's 200 body for normalised parameters: its result serialised by the function compiled
   * for its response schema (src/http/serializers.ts), as the handler serialises it. Rejects with
   * what the route responds with otherwise (a record not found, a store that cannot answer).
   */
  readonly compute: (store: Store, parameters: unknown) => Promise<string>;
  /**
   * The requests whose computation failed on the fast path, handed to Fastify, with their failure:
   * the route's handler responds with it instead of asking the store again. Kept here, by request,
   * by the route both paths share; nothing is set on the request.
   */
  readonly failures: WeakMap<IncomingMessage, Error>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A protected GET's DirectRoute rides on its config, so that the fast path's router sees every route Fastify's does. */
    readonly direct?: DirectRoute;
  }
}

export type { OpenRoute } from './contract.js';

/** A method the routing table gives an operation (HEAD is served with GET). */
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * The operations of one Fastify scope, registered as the routing table (src/http/routes.ts) lists
 * them; `allow()` then gives each of their paths, for the methods it does not serve, one 405 that
 * names those it does. The one place a 405 and its `Allow` are made.
 */
export class Operations {
  private readonly served = new Map<string, string[]>();

  constructor(readonly app: FastifyInstance) {}

  add<G extends RouteGenericInterface>(method: Method, url: string, route: OpenRoute<G>): void {
    this.app.route<G>({ ...route, method, url });
    this.served.set(url, [...(this.served.get(url) ?? []), ...(method === 'GET' ? ['GET', 'HEAD'] : [method])]);
  }

  allow(): void {
    for (const [url, allowed] of this.served) {
      // With CORS on, OPTIONS belongs to the preflight answer.
      const taken = this.app.hasDecorator(CORS_PREFLIGHT) ? [...allowed, 'OPTIONS'] : allowed;
      this.app.route({ method: ALL_METHODS.filter((m) => !taken.includes(m)), url, schema: { hide: true }, handler: methodNotAllowed(allowed) });
    }
    this.served.clear();
  }
}

/**
 * Operations in a scope of their own, whose bodies `bodies` reads its own way (a batch's file as a
 * stream, an MCP message as text): listed by `list`, their 405s made in the same scope.
 */
export async function scoped(app: FastifyInstance, bodies: (scope: FastifyInstance) => void, list: (operations: Operations) => void): Promise<void> {
  await app.register((scope, _options, done) => {
    bodies(scope);
    const operations = new Operations(scope);
    list(operations);
    operations.allow();
    done();
  });
}

/**
 * A protected, cached GET: what differs from one such route to another (its URL is in the routing
 * table). `PP` and `QQ` are its checked path parameters and query, `P` its normalised parameters,
 * `S` its 200's schema, whose type its computation answers.
 *
 * Its path parameters and query are declared as the contract declares every route's parts
 * (src/http/contract.ts): Fastify checks them, reports every failing one in one 422 (path first, then
 * query, `as_of` last, as FastAPI does) and types the request by them. The fast path answers a cached
 * URL before Fastify without checking it again (the URL was answered with a 200 before), and
 * computes a lookup's miss with the same reading of its path.
 */
export interface ProtectedGet<PP, QQ, P, S extends TSchema> {
  readonly operationId: string;
  readonly summary: string;
  /** What the operation answers and when, for the OpenAPI document (the lint names an operation without one). */
  readonly description?: string;
  readonly tag: string;
  /** Its path parameters and query, each read by its rules beside its schema; `as_of` is the kind's, added to every query. */
  readonly parts: { readonly params?: Read<PP, TObject>; readonly querystring?: Read<QQ, TObject> };
  /** The request's normalised parameters, from its checked parts: equal parameters share a cached response. */
  readonly parameters: (request: CheckedGet<PP, QQ>) => P;
  /**
   * The parameters are the path's alone (`parameters` reads nothing else): the fast path responds to
   * the route's misses too, with the same reading (src/http/fast-path.ts).
   */
  readonly fromPath?: true;
  /**
   * The 200's schema: the type of what `compute` answers, the serialiser both paths send it with and
   * the OpenAPI response. One with an `$id` is added to the app's schemas and referred to by it.
   */
  readonly ok: S;
  /** Responses besides the 200 and the 422 every protected route documents (the guard's 401 is the document's, src/http/openapi.ts). */
  readonly responses?: Readonly<Record<number, Readonly<Record<string, unknown>>>>;
  /** What the route works out from the store for its parameters, before it is serialised. */
  readonly compute: (store: Store, parameters: P) => Promise<Static<S>>;
  /** Other schemas the responses refer to that no other route brings. */
  readonly schemas?: readonly Readonly<Record<string, unknown>>[];
  /**
   * Whether the request's URL alone names its parameters (when not given: it does). Parameters that
   * take today's date when the URL names none must not be found again by their URL on another day.
   */
  readonly urlNamesParameters?: (request: CheckedGet<PP, QQ>) => boolean;
}

/** A protected GET's request once checked: its path parameters, its query with `as_of`. */
export interface CheckedGet<PP, QQ> {
  readonly params: PP;
  readonly query: QQ & AsOf;
}

/** The version a request names, checked: undefined when not given. */
export interface AsOf {
  readonly as_of: string | undefined;
}

/** `as_of`, which every business GET takes (../shared/spec/versiones.md). */
export const AS_OF = {
  name: 'as_of',
  in: 'query',
  kind: 'date',
  description: 'Answer from the dataset version in force on this date (YYYY-MM-DD); the current version when not given.',
} as const satisfies ParamSpec;

/**
 * The `as_of` a query names, checked: undefined when not given, a RequestValidationError (422) when
 * not a calendar date. The one check of `as_of`, for Fastify's path and the fast path alike.
 */
export const asOfOf = (query: Readonly<Record<string, unknown>>): string | undefined => parseParams([AS_OF], {}, query).as_of;

/** A failure of a route's own query, with `as_of`'s failures after it: both in one 422, as FastAPI reports them. */
function alsoAsOf(error: unknown, query: Readonly<Record<string, unknown>>): unknown {
  if (!(error instanceof RequestValidationError)) return error;
  try {
    asOfOf(query);
  } catch (more) {
    if (more instanceof RequestValidationError) return new RequestValidationError([...error.detail, ...more.detail]);
  }
  return error;
}

/** A route's query with `as_of` after its own parameters: the schema's last property, its failures after the route's. */
export function withAsOf<QQ>(query: Read<QQ, TObject> | undefined): Read<QQ & AsOf, TObject> {
  return {
    schema: Type.Object({ ...query?.schema.properties, as_of: Type.Optional(paramSchema(AS_OF)) }),
    read: (value) => {
      const given = fields(value);
      let own: QQ | undefined;
      try {
        own = query?.read(given);
      } catch (error) {
        throw alsoAsOf(error, given);
      }
      return Object.assign({}, own, { as_of: asOfOf(given) });
    },
  };
}

/** The cache key of a route's normalised parameters: equal parameters share one response. */
const cacheKey = (operationId: string, parameters: unknown): string => `${operationId}?${JSON.stringify(parameters)}`;

/** Registers a GET behind the bearer guard whose responses are kept in the cache, as every business route is. */
export function protectedGet<PP, QQ, P, S extends TSchema>(
  operations: Operations,
  ctx: ProtectedContext,
  url: string,
  route: ProtectedGet<PP, QQ, P, S>,
): void {
  const { app } = operations;
  for (const schema of route.schemas ?? []) app.addSchema(schema);
  const named = route.ok.$id;
  if (named !== undefined) app.addSchema(route.ok);
  const parts = { params: route.parts.params, querystring: withAsOf(route.parts.querystring) };
  // The 200's schema finds the serialiser Fastify compiled for it when the app became ready, used by both paths.
  const ok = { description: 'Successful Response', ...(named === undefined ? route.ok : { $ref: `${named}#` }) };
  let serializer: ((result: Static<S>) => string) | undefined;
  const serialize = (result: Static<S>): string => {
    serializer ??= serializerOf(ok);
    if (serializer === undefined) throw new Error(`No serialiser compiled for the 200 of ${url}`);
    return serializer(result);
  };
  const compute = (store: Store, parameters: P): Promise<string> => route.compute(store, parameters).then(serialize);
  const path = parts.params;
  if (route.fromPath && path === undefined) throw new Error(`${url}: parameters from a path that declares none`);
  const direct: DirectRoute | undefined =
    route.fromPath === undefined || path === undefined
      ? undefined
      : {
          url,
          // The path read as Fastify's check reads it; the query as an empty one reads (the version is the fast path's).
          parameters: (given) => route.parameters({ params: path.read(given), query: parts.querystring.read({}) }),
          cacheKey: (parameters) => cacheKey(route.operationId, parameters),
          compute: (store, parameters) => compute(store, parameters as P),
          failures: new WeakMap(),
        };
  operations.add(
    'GET',
    url,
    typed(parts, {
      config: { direct, namesVersion: true },
      onRequest: ctx.protect,
      schema: {
        operationId: route.operationId,
        summary: route.summary,
        ...(route.description === undefined ? {} : { description: route.description }),
        tags: [route.tag],
        security: [{ HTTPBearer: [] }],
        response: { 200: ok, ...route.responses, ...errorResponses },
      },
      handler: async (request, reply) => {
        // The parts as the route's reads gave them, Fastify having checked them before the handler: its
        // request types cannot follow a type parameter through the route's generic, so they are named here.
        const checked = { params: request.params, query: request.query } as CheckedGet<PP, QQ>;
        const parameters = route.parameters(checked);
        const asOf = checked.query.as_of;
        const inForce = asOf === undefined ? ctx.datasets.current() : ctx.datasets.on(asOf);
        if (!inForce) throw refusal('NO_DATASET_ON', { fecha: String(asOf) });
        const { store, version } = inForce;
        if (version) void reply.header('x-dataset-version', version.version);
        const failed = direct?.failures.get(request.raw);
        if (failed !== undefined) throw failed;
        const key = cacheKey(route.operationId, parameters);
        const byUrl = route.urlNamesParameters?.(checked) ?? true;
        return sendCached(reply, ctx.cache, store, key, () => compute(store, parameters), version?.version, byUrl);
      },
    }),
  );
}
