/**
 * One contract per route: a route declares its path parameters, query and body as TypeBox schemas
 * (`typed`), Fastify checks each part by its schema before the handler runs (`validatorCompiler`),
 * failures come out in Pydantic's shapes (src/http/typed.ts), every failing part in one 422 as
 * FastAPI gives it (`everyFailure`), and the handler's request is typed by the same schemas
 * (`Static`), so no handler casts what it was sent. What a schema cannot say (a fraction in any typed
 * form, a country the tables know) is one refinement beside the schema (`Read`); what needs a rule
 * across fields or today's date is called by the handler on the typed value.
 */
import { KindGuard } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import type { TObject } from '@sinclair/typebox';
import type {
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  HookHandlerDoneFunction,
  FastifySchemaCompiler,
  FastifyServerOptions,
  RouteGenericInterface,
  RouteOptions,
} from 'fastify';
import type { RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { ValidationDetail } from './errors.js';
import { RequestValidationError } from './errors.js';
import type { ParamSpec, ParsedOf } from './params.js';
import { fields, parseParams, partSchemas } from './params.js';
import { checked, parseQuery } from './typed.js';

/**
 * A part read by the contract's parameter rules (src/http/params.ts: a fraction in any typed form, an
 * integer with spaces around it, an empty value as none, `int_parsing`), which JSON Schema cannot
 * say: `schema` documents it, `read` is the refinement that checks and normalises it.
 */
export interface Read<T, S extends TSchema = TSchema> {
  readonly schema: S;
  readonly read: (value: unknown) => T;
}

/** The parts of a request a route checks, each by its TypeBox schema or read by its parameter rules. */
export interface Parts {
  readonly params?: TSchema | Read<unknown>;
  readonly querystring?: TSchema | Read<unknown>;
  readonly body?: TSchema | Read<unknown>;
}

type StaticOf<S> = S extends Read<infer T> ? T : S extends TSchema ? Static<S> : unknown;

/** Path parameters declared as ParamSpecs, read by their rules. */
export function pathParams<const S extends readonly ParamSpec[]>(specs: S): Read<ParsedOf<S>, TObject> {
  const { params } = partSchemas(specs);
  if (params === undefined || specs.some((s) => s.in !== 'path')) throw new Error('path parameters only');
  return { schema: params, read: (value) => parseParams(specs, fields(value), {}) };
}

/** Query parameters declared as ParamSpecs, read by their rules. */
export function queryParams<const S extends readonly ParamSpec[]>(specs: S): Read<ParsedOf<S>, TObject> {
  const { querystring } = partSchemas(specs);
  if (querystring === undefined || specs.some((s) => s.in !== 'query')) throw new Error('query parameters only');
  return { schema: querystring, read: (value) => parseParams(specs, {}, fields(value)) };
}

/** An open route as the routing table pairs it with its URL and method (route-kinds.ts); `G` types its request's parts (`Checked`). */
export type OpenRoute<G extends RouteGenericInterface = RouteGenericInterface> = Omit<
  RouteOptions<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, G>,
  'url' | 'method'
>;

/** Fastify's route generic for checked parts: `request.params`, `.query` and `.body` as their schemas' types. */
export interface Checked<P extends Parts> extends RouteGenericInterface {
  Params: StaticOf<P['params']>;
  Querystring: StaticOf<P['querystring']>;
  Body: StaticOf<P['body']>;
}

/** The check of each declared part, by the object Fastify is given for it (the schema, or a reference to it). */
const checks = new WeakMap<object, (value: unknown) => unknown>();

/** Where each part's failures are placed (`loc`). */
const LOC = { params: 'path', querystring: 'query', body: 'body' } as const;

/** How a part's raw value is checked: a query's texts are read first (numbers, booleans, lists). */
function checkOf(part: keyof Parts, schema: TSchema): (value: unknown) => unknown {
  const check = checked(schema, LOC[part]);
  return part === 'querystring' ? (value) => parseQuery(check, value) : (value) => check.parse(value);
}

/** The object the route's schema holds for a part: a reference when the schema is named (an OpenAPI component), else the schema. */
function declared(part: keyof Parts, given: TSchema | Read<unknown>): object {
  if (!KindGuard.IsSchema(given)) {
    checks.set(given.schema, given.read);
    return given.schema;
  }
  const named = given.$id;
  const held = named === undefined ? given : { $ref: `${named}#` };
  checks.set(held, checkOf(part, given));
  return held;
}

/** Where FastAPI places each part's failures in one 422: path, then query, then body. */
const FASTAPI_ORDER: readonly unknown[] = ['path', 'query', 'body'];
const placeOf = (detail: ValidationDetail): number => {
  const at = FASTAPI_ORDER.indexOf(detail.loc[0]);
  return at < 0 ? FASTAPI_ORDER.length : at;
};

/** The parts in the order Fastify checks them, stopping at the first that fails, with the request's property for each. */
const FASTIFY_ORDER = [
  ['params', 'params'],
  ['body', 'body'],
  ['querystring', 'query'],
] as const;

/**
 * Every failing part in one 422, as FastAPI reports them. Fastify stops at the first part that fails
 * (params, body, querystring) and, the route attaching its failure, runs this before the handler: the
 * parts after it, still as they were sent, are checked by their own checks, and all their failures go
 * out together, in FastAPI's order (a part before the failing one passed: its value is the checked one).
 */
export function everyFailure(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  done(allFailures(request));
}

/** The request's failures, all of them: the attached one with those of the parts Fastify did not reach. */
function allFailures(request: FastifyRequest): Error | undefined {
  const failure = request.validationError;
  if (failure === undefined || !(failure instanceof RequestValidationError)) return failure;
  const detail = [...failure.detail];
  const failed = FASTIFY_ORDER.findIndex(([part]) => part === failure.validationContext);
  if (failed < 0) return failure;
  const schemas: FastifySchema = request.routeOptions.schema ?? {};
  for (const [part, property] of FASTIFY_ORDER.slice(failed + 1)) {
    const declared = schemas[part];
    const check = typeof declared === 'object' && declared !== null ? checks.get(declared) : undefined;
    const value: unknown = request[property];
    try {
      check?.(value === undefined ? null : value);
    } catch (error) {
      if (!(error instanceof RequestValidationError)) return error instanceof Error ? error : new Error(String(error));
      detail.push(...error.detail);
    }
  }
  // A stable sort: each part's failures stay in their own order.
  return new RequestValidationError(detail.sort((a, b) => placeOf(a) - placeOf(b)));
}

/**
 * A route whose parts Fastify checks by their schemas: `parts` go into the route's schema (a named
 * schema as a reference to its component) and type its handler's request; every failing part is
 * reported in one 422 before the handler runs (`everyFailure`).
 */
export function typed<const P extends Parts>(parts: P, route: OpenRoute<Checked<P>>): OpenRoute<Checked<P>> {
  const schema: FastifySchema = { ...route.schema };
  for (const part of ['params', 'querystring', 'body'] as const) {
    const given = parts[part];
    if (given !== undefined) schema[part] = declared(part, given);
  }
  const own = route.preHandler === undefined ? [] : [route.preHandler].flat();
  return { ...route, schema, attachValidation: true, preHandler: [everyFailure, ...own] };
}

/**
 * Fastify's validator compiler, for every scope: a part declared through `typed` is checked by its
 * schema, its value replaced by the checked one (defaults filled in, query texts read as numbers and
 * booleans), a failure being the contract's 422. Any other schema a route holds only documents a
 * request the route reads by itself (a batch's file, taken as a stream, and MCP's message, taken as
 * text: see docs/architecture.md), and is not checked here.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema }) => {
  const check = typeof schema === 'object' && schema !== null ? checks.get(schema) : undefined;
  if (check === undefined) return () => true;
  return (value: unknown) => {
    try {
      return { value: check(value) };
    } catch (error) {
      if (error instanceof RequestValidationError) return { error };
      throw error;
    }
  };
};

/** The factory of that compiler, as Fastify's options take it for every scope; Fastify's type for the factory speaks of Ajv's compile only. */
export const buildValidator = (() => validatorCompiler) as unknown as NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
>;
