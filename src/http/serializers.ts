/**
 * Fastify's response serialisers, compiled once per process for each response schema and the shared
 * schemas it refers to. An app's build compiles one per route and status; a process that builds
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

type SchemaBucketFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['bucket']>;
type SchemaBucket = ReturnType<SchemaBucketFactory>;

/** Fastify's own store of shared schemas (the one it makes when given no `bucket`). */
const fastifyBucket = (fastifyOwn('./lib/schemas.js') as { buildSchemas: SchemaBucketFactory }).buildSchemas;

/**
 * Fastify's store of an app's shared schemas, whose copy of them all (getSchemas) is made once until a
 * schema is added, not at each call: Fastify asks for it twice for every route of a scope that added
 * schemas (to set up its validator and serializer compilers), and copied the app's 47 shared
 * schemas each time (some 450 copies of 35 µs: about a tenth of a start's CPU). The copy is frozen, as several callers now share it;
 * a scope made from it (Fastify passes its parent's copy) starts from a copy of its own.
 */
export const sharedSchemaBucket: SchemaBucketFactory = (parentSchemas) => {
  const own: SchemaBucket = fastifyBucket(parentSchemas === undefined ? undefined : { ...(parentSchemas as Record<string, unknown>) });
  let all: Record<string, unknown> | undefined;
  return {
    add(schema: unknown) {
      all = undefined;
      own.add(schema);
    },
    getSchema: (id: string) => own.getSchema(id),
    getSchemas: () => (all ??= Object.freeze(own.getSchemas())),
  } as SchemaBucket;
};

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

/**
 * The shared schemas `schema` refers to (`$ref: 'Name#…'`), and those they refer to in turn, by id:
 * fast-json-stringify checks every shared schema it is given on every compile (against the JSON Schema
 * meta-schema, and for depth), so a route given all of them checked each one once per route and
 * status, about half a second of a process's start; given these alone it checks only what it may use.
 */
function referencedSchemas(schema: unknown, shared: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') {
        const id = child.split('#')[0]!;
        if (id !== '' && !(id in found) && Object.hasOwn(shared, id)) {
          found[id] = shared[id];
          pending.push(shared[id]);
        }
      } else pending.push(child);
    }
  }
  return found;
}

/**
 * `schema` with every union (anyOf, oneOf) below its root made a schema of its own, `$ref`ed by an id
 * added to `separate`: fast-json-stringify picks a union's branch by validating the value with Ajv,
 * against a pointer into the schema that holds the union, and Ajv compiles that whole schema to resolve
 * the pointer. The ficha's (every record set's fields, its rules of origin) was compiled so at the
 * first ficha answered, about 0.2 s of a process's CPU, to validate a nullable description; a union of
 * its own is compiled alone. What is written is the same: each union keeps its branches and their order.
 */
function separateUnions(schema: unknown, prefix: string, separate: Record<string, unknown>): unknown {
  // A value with no union below it is given as it is, not copied.
  const walk = (value: unknown, root: boolean): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    let changed = false;
    const children = Object.entries(value).map(([key, child]) => {
      const made = walk(child, false);
      changed ||= made !== child;
      return [key, made] as const;
    });
    const same = !changed;
    const copy = Array.isArray(value) ? children.map(([, made]) => made) : Object.fromEntries(children);
    if (
      root ||
      Array.isArray(value) ||
      !(Array.isArray((copy as Record<string, unknown>)['anyOf']) || Array.isArray((copy as Record<string, unknown>)['oneOf']))
    )
      return same ? value : copy;
    const id = `${prefix}~${Object.keys(separate).length}`;
    separate[id] = { ...(copy as Record<string, unknown>), $id: id };
    return { $ref: `${id}#` };
  };
  return walk(schema, true);
}

/**
 * Fastify's own serializer factory given, for each route, only the shared schemas its response schema
 * refers to (referencedSchemas), remembering in the process what it compiled
 * (schemaController.compilersFactory.buildSerializer).
 */
export const sharedSerializers: SerializerFactory = (externalSchemas, serializerOpts) => {
  const shared = externalSchemas as Record<string, object>;
  return (route) => {
    const used = referencedSchemas(route.schema, shared);
    const key = keyOf(
      Object.entries(used).map(([id, schema]) => [id, schemaKey(schema as object)]),
      serializerOpts,
      route.schema,
    );
    let serialize = compiled.get(key);
    if (serialize === undefined) {
      const separate: Record<string, unknown> = {};
      const externals = Object.fromEntries(Object.entries(used).map(([id, schema]) => [id, separateUnions(schema, id, separate)]));
      const own = separateUnions(route.schema, 'response', separate);
      serialize = defaultFactory({ ...externals, ...separate }, serializerOpts)({ ...route, schema: own }) as Serialize;
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
