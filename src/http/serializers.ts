/**
 * Fastify's response serialisers, compiled once per process for each response schema and the shared
 * schemas it may refer to. An app's build compiles one per route and status, and each compile checks
 * every shared schema again (about 2 s for an app on this 2-core machine); a process that builds
 * several apps (the tests build hundreds, a benchmark several) gets the functions the first build
 * made. A serialiser holds no state, so sharing one gives every app the bytes its own would give.
 * A route's response schema finds the function compiled for it (`serializerOf`): the cached GETs
 * serialise with it on both paths, Fastify's and the fast path (src/http/fast-path.ts).
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>;

/** The compiler Fastify itself uses when given none, taken from Fastify's own dependencies. */
const fastifyOwn = createRequire(createRequire(import.meta.url).resolve('fastify'));
const defaultFactory = (fastifyOwn('@fastify/fast-json-stringify-compiler') as { SerializerSelector: () => SerializerFactory }).SerializerSelector();

/** A compiled serialiser: a value of the response schema's shape to its JSON text. */
export type Serialize = (data: unknown) => string;

const compiled = new Map<string, Serialize>();
/** The function compiled for each response schema object, as Fastify compiled the routes that hold it. */
const bySchema = new WeakMap<object, Serialize>();

const keyOf = (...parts: unknown[]): string => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(JSON.stringify(part) ?? 'undefined').update('\0');
  return hash.digest('hex');
};

const schemaKeys = new WeakMap<object, string>();

/** A shared schema's key, made once: every scope of an app holds the same shared schema objects. */
const schemaKey = (schema: object): string => {
  let key = schemaKeys.get(schema);
  if (key === undefined) {
    key = keyOf(schema);
    schemaKeys.set(schema, key);
  }
  return key;
};

/** Fastify's own serializer factory, remembering in the process what it compiled (schemaController.compilersFactory.buildSerializer). */
export const sharedSerializers: SerializerFactory = (externalSchemas, serializerOpts) => {
  const compile = defaultFactory(externalSchemas, serializerOpts);
  const schemas = Object.entries(externalSchemas as Record<string, object>).map(([id, schema]) => [id, schemaKey(schema)]);
  const scope = keyOf(schemas, serializerOpts);
  return (route) => {
    const key = keyOf(scope, route.schema);
    let serialize = compiled.get(key);
    if (serialize === undefined) {
      serialize = compile(route) as Serialize;
      compiled.set(key, serialize);
    }
    if (typeof route.schema === 'object' && route.schema !== null) bySchema.set(route.schema, serialize);
    return serialize;
  };
};

/**
 * The serialiser compiled for a response schema of a route: the one Fastify's reply uses for that
 * status, compiled when the app became ready; undefined before then.
 */
export const serializerOf = (schema: object): Serialize | undefined => bySchema.get(schema);
