/**
 * The kinds of route the service has, each registered one way: an open GET or POST (wrong methods on
 * its path answer 405 with Allow, as the original does) and a protected, cached GET (every business
 * route). Which URL is which kind is the routing table's business (routes.ts).
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteGenericInterface, RouteOptions, onRequestHookHandler } from 'fastify';
import type { RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { Datasets, VersionInForce } from '../store/datasets.js';
import type { Store } from '../store/store.js';
import type { ResponseCache } from './cache.js';
import { sendCached } from './cache.js';
import { RequestValidationError, methodNotAllowed, refusal } from './errors.js';
import type { ParamSpec, Parsed } from './params.js';
import { fields, parseParams, partSchemas } from './params.js';
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

/** An open route as the routing table pairs it with its URL and method; `G` types its request's parts (src/http/contract.ts). */
export type OpenRoute<G extends RouteGenericInterface = RouteGenericInterface> = Omit<
  RouteOptions<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, G>,
  'url' | 'method'
>;

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

/** A protected GET's request as its parameters' reading sees it: its path parameters and its query, as Fastify gives them. */
export interface Given {
  readonly path: Readonly<Record<string, unknown>>;
  readonly query: Readonly<Record<string, unknown>>;
}

const given = (request: FastifyRequest): Given => ({ path: fields(request.params), query: fields(request.query) });

/**
 * A protected, cached GET: what differs from one such route to another (its URL is in the routing
 * table). `P` is its normalised parameters, `S` its 200's schema, whose type its computation answers.
 *
 * Its parameters are read by the route itself (`parse`, `fromPath`), not by Fastify's validation
 * (src/http/contract.ts): the fast path answers it before Fastify with the same reading, and FastAPI
 * reports a bad path parameter and a bad query in one 422, which Fastify's checks, part by part and
 * stopping at the first failing part, cannot give.
 */
export type ProtectedGet<P, S extends TSchema> = ProtectedGetBase<P, S> &
  (
    | {
        /** The request's normalised parameters: equal parameters share a cached response. */
        readonly parse: (given: Given) => P;
        readonly fromPath?: undefined;
      }
    | {
        /**
         * For a route whose parameters are its path's alone: them, normalised. The request's
         * parameters are read through it, and the fast path responds to the route's misses too.
         */
        readonly fromPath: (path: Readonly<Record<string, unknown>>) => P;
        readonly parse?: undefined;
      }
  );

interface ProtectedGetBase<P, S extends TSchema> {
  readonly operationId: string;
  readonly summary: string;
  /** What the operation answers and when, for the OpenAPI document (the lint names an operation without one). */
  readonly description?: string;
  readonly tag: string;
  readonly params: readonly ParamSpec[];
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
  readonly urlNamesParameters?: (given: Given) => boolean;
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

const parseAsOf = (request: FastifyRequest): string | undefined => asOfOf(fields(request.query));

/** The `as_of` a query names when it is a date, for a route's own parsing; a bad one is left to versionInForce's one 422. */
export function asOfIfValid(query: Readonly<Record<string, unknown>>): string | undefined {
  try {
    return asOfOf(query);
  } catch {
    return undefined;
  }
}

/**
 * The version a business request is answered from, named in `X-Dataset-Version`. `parse` is the
 * route's own parsing: a bad `as_of` joins its 422, after the route's parameters, as FastAPI orders them.
 */
export function versionInForce<P>(
  request: FastifyRequest,
  reply: FastifyReply,
  datasets: Datasets,
  parse: (given: Given) => P,
): { parameters: P; inForce: VersionInForce } {
  let parameters: P;
  try {
    parameters = parse(given(request));
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    try {
      parseAsOf(request);
    } catch (more) {
      if (more instanceof RequestValidationError) throw new RequestValidationError([...error.detail, ...more.detail]);
    }
    throw error;
  }
  const asOf = parseAsOf(request);
  const inForce = asOf === undefined ? datasets.current() : datasets.on(asOf);
  if (!inForce) throw refusal('NO_DATASET_ON', { fecha: String(asOf) });
  if (inForce.version) void reply.header('x-dataset-version', inForce.version.version);
  return { parameters, inForce };
}

/** The cache key of a route's normalised parameters: equal parameters share one response. */
const cacheKey = (operationId: string, parameters: unknown): string => `${operationId}?${JSON.stringify(parameters)}`;

/** Registers a GET behind the bearer guard whose responses are kept in the cache, as every business route is. */
export function protectedGet<P, S extends TSchema>(operations: Operations, ctx: ProtectedContext, url: string, route: ProtectedGet<P, S>): void {
  const { app } = operations;
  for (const schema of route.schemas ?? []) app.addSchema(schema);
  const named = route.ok.$id;
  if (named !== undefined) app.addSchema(route.ok);
  const fromPath = route.fromPath;
  const parse = fromPath === undefined ? route.parse : ({ path }: Given): P => fromPath(path);
  // The 200's schema finds the serialiser Fastify compiled for it when the app became ready, used by both paths.
  const ok = { description: 'Successful Response', ...(named === undefined ? route.ok : { $ref: `${named}#` }) };
  let serializer: ((result: Static<S>) => string) | undefined;
  const serialize = (result: Static<S>): string => {
    serializer ??= serializerOf(ok);
    if (serializer === undefined) throw new Error(`No serialiser compiled for the 200 of ${url}`);
    return serializer(result);
  };
  const compute = (store: Store, parameters: P): Promise<string> => route.compute(store, parameters).then(serialize);
  const direct: DirectRoute | undefined =
    fromPath === undefined
      ? undefined
      : {
          url,
          parameters: fromPath,
          cacheKey: (parameters) => cacheKey(route.operationId, parameters),
          compute: (store, parameters) => compute(store, parameters as P),
          failures: new WeakMap(),
        };
  operations.add('GET', url, {
    config: { direct, namesVersion: true },
    onRequest: ctx.protect,
    schema: {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description === undefined ? {} : { description: route.description }),
      tags: [route.tag],
      security: [{ HTTPBearer: [] }],
      ...partSchemas([...route.params, AS_OF]),
      response: { 200: ok, ...route.responses, ...errorResponses },
    },
    handler: async (request, reply) => {
      const { parameters, inForce } = versionInForce(request, reply, ctx.datasets, parse);
      const { store, version } = inForce;
      const failed = direct?.failures.get(request.raw);
      if (failed !== undefined) throw failed;
      const key = cacheKey(route.operationId, parameters);
      const byUrl = route.urlNamesParameters?.(given(request)) ?? true;
      return sendCached(reply, ctx.cache, store, key, () => compute(store, parameters), version?.version, byUrl);
    },
  });
}

/** Path and query parameters parsed by their declarations (src/http/params.ts). */
export const parseDeclared =
  (params: readonly ParamSpec[]) =>
  ({ path, query }: Given): Parsed =>
    parseParams(params, path, query);
