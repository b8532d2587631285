/**
 * A TypeBox schema's check in Pydantic's error shapes (the contract's 422): what Fastify runs for a
 * route's declared parts (src/http/contract.ts), the schema being also the request's TypeScript type
 * (`Static`) and the OpenAPI operation's schema.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import type { ValueError } from '@sinclair/typebox/errors';
import type { ValidationDetail } from './errors.js';
import { RequestValidationError } from './errors.js';
import { isIsoDate } from '../store/versions.js';

// `format: 'date'`: a calendar date written YYYY-MM-DD, as FastAPI's `date` takes it.
if (!FormatRegistry.Has('date')) FormatRegistry.Set('date', isIsoDate);

/** Pydantic v2's type and message for each kind of TypeBox failure the routes' schemas can produce. */
function pydantic(error: ValueError): Pick<ValidationDetail, 'type' | 'msg' | 'ctx'> {
  const schema = error.schema as Record<string, unknown>;
  switch (error.type) {
    case ValueErrorType.String:
      return { type: 'string_type', msg: 'Input should be a valid string' };
    case ValueErrorType.StringMinLength:
      return {
        type: 'string_too_short',
        msg: `String should have at least ${String(schema['minLength'])} characters`,
        ctx: { min_length: schema['minLength'] },
      };
    case ValueErrorType.StringMaxLength:
      return { type: 'string_too_long', msg: `String should have at most ${String(schema['maxLength'])} characters`, ctx: { max_length: schema['maxLength'] } };
    case ValueErrorType.StringPattern:
      return { type: 'string_pattern_mismatch', msg: `String should match pattern '${String(schema['pattern'])}'`, ctx: { pattern: schema['pattern'] } };
    case ValueErrorType.StringFormat:
      // As every date parameter of the API says it (src/http/params.ts).
      return schema['format'] === 'date'
        ? { type: 'date_parsing', msg: 'Input should be a valid date in the format YYYY-MM-DD' }
        : { type: 'value_error', msg: `Value error, not a valid ${String(schema['format'])}` };
    case ValueErrorType.Boolean:
      return { type: 'bool_type', msg: 'Input should be a valid boolean' };
    case ValueErrorType.Integer:
    case ValueErrorType.Number:
      return { type: 'int_type', msg: 'Input should be a valid integer' };
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${String(schema['minimum'])}`, ctx: { ge: schema['minimum'] } };
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return { type: 'less_than_equal', msg: `Input should be less than or equal to ${String(schema['maximum'])}`, ctx: { le: schema['maximum'] } };
    case ValueErrorType.Array:
      return { type: 'list_type', msg: 'Input should be a valid list' };
    case ValueErrorType.ArrayMinItems:
      return listLength(error, 'too_short', 'least', 'min_length', schema['minItems']);
    case ValueErrorType.ArrayMaxItems:
      return listLength(error, 'too_long', 'most', 'max_length', schema['maxItems']);
    case ValueErrorType.Object:
      return { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' };
    case ValueErrorType.ObjectRequiredProperty:
      return { type: 'missing', msg: 'Field required' };
    case ValueErrorType.ObjectAdditionalProperties:
      return { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' };
    case ValueErrorType.Literal:
    case ValueErrorType.Union: {
      const options = Array.isArray(schema['anyOf']) ? (schema['anyOf'] as { const?: unknown }[]).map((o) => o.const) : [schema['const']];
      const expected = options.map((o) => `'${String(o)}'`).join(', ');
      return { type: 'literal_error', msg: `Input should be ${expected}`, ctx: { expected } };
    }
    default:
      return { type: 'value_error', msg: `Value error, ${error.message}` };
  }
}

/** `/a/0/b` → ['a', 0, 'b'] (array indexes as numbers, as Pydantic writes them). */
function pathOf(path: string): (string | number)[] {
  if (path === '') return [];
  return path
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9][0-9]*)$/.test(part) ? Number(part) : part));
}

export interface Checked<S extends TSchema> {
  readonly schema: S;
  /** The value as the schema's type, or a RequestValidationError naming every failure under `where` ('body', 'query'…). */
  parse(value: unknown): Static<S>;
}

/**
 * Compiles a route's schema once. Each failing value is reported once, by the first failure TypeBox
 * finds for it, in the order of the schema's fields (as Pydantic reports them); a value that may be
 * null is reported by what it is not, a list that is too long by its length alone.
 */
export function checked<S extends TSchema>(schema: S, where: 'body' | 'query' | 'path'): Checked<S> {
  const check: TypeCheck<S> = TypeCompiler.Compile(schema);
  return {
    schema,
    parse(value: unknown): Static<S> {
      if (check.Check(value)) return value;
      const failures = new Map<string, ValueError>();
      // A required property's absence is reported at the property's own path.
      for (const error of plain(check.Errors(value))) if (!failures.has(error.path)) failures.set(error.path, error);
      const tooLong = [...failures.values()].filter((e) => e.type === ValueErrorType.ArrayMaxItems).map((e) => `${e.path}/`);
      const detail = [...failures.values()]
        .filter((error) => !tooLong.some((list) => error.path.startsWith(list)))
        .map((error) => ({ error, rank: rank(schema, pathOf(error.path)) }))
        .sort((a, b) => compareRanks(a.rank, b.rank))
        .map(({ error }): ValidationDetail => {
          const entry: ValidationDetail = {
            ...pydantic(error),
            loc: [where, ...pathOf(error.path)],
            input: echo(error.type === ValueErrorType.ObjectRequiredProperty ? parentOf(value, error.path) : (error.value ?? null)),
          };
          if (entry.ctx === undefined) delete entry.ctx;
          return entry;
        });
      throw new RequestValidationError(detail);
    },
  };
}

/** A value that may be null and is not is reported by the failures of what it should be instead. */
function* plain(errors: Iterable<ValueError>): Generator<ValueError> {
  for (const error of errors) {
    const variants = error.type === ValueErrorType.Union ? ((error.schema as { anyOf?: { type?: unknown }[] }).anyOf ?? []) : [];
    const own = error.errors[variants.findIndex((v) => v.type !== 'null')];
    if (variants.length === 2 && variants.some((v) => v.type === 'null') && error.value !== null && own !== undefined) yield* plain(own);
    else yield error;
  }
}

/** Pydantic's too_short and too_long of a list, with the length it had. */
function listLength(error: ValueError, type: string, bound: string, name: string, limit: unknown): Pick<ValidationDetail, 'type' | 'msg' | 'ctx'> {
  const actual = Array.isArray(error.value) ? error.value.length : 0;
  return {
    type,
    msg: `List should have at ${bound} ${String(limit)} item${limit === 1 ? '' : 's'} after validation, not ${actual}`,
    ctx: { field_type: 'List', [name]: limit, actual_length: actual },
  };
}

/** Longest input written back in an error, as JSON. */
const MAX_ECHO = 2000;

/**
 * The input as an error repeats it (Pydantic does), unless it is too large or too deeply nested to
 * write back: a 1 MiB body or ten thousand nested arrays are named, not repeated.
 */
function echo(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  try {
    if (JSON.stringify(value).length <= MAX_ECHO) return value;
  } catch {
    // Nested too deeply to be written: described below.
  }
  return Array.isArray(value) ? `a list of ${value.length} items` : 'an object too large to repeat';
}

/** Each step of a path as its place in the schema: a property by its order among the object's, an item by its index. */
function rank(schema: TSchema, path: (string | number)[]): number[] {
  const ranks: number[] = [];
  let node: Record<string, unknown> | undefined = schema;
  for (const step of path) {
    const wanted = typeof step === 'number' ? 'items' : 'properties';
    const variants = node?.['anyOf'];
    if (Array.isArray(variants)) node = (variants as Record<string, unknown>[]).find((v) => v[wanted] !== undefined);
    if (typeof step === 'number') {
      ranks.push(step);
      node = node?.['items'] as Record<string, unknown> | undefined;
      continue;
    }
    const properties = node?.['properties'] as Record<string, Record<string, unknown>> | undefined;
    const names = Object.keys(properties ?? {});
    ranks.push(names.includes(step) ? names.indexOf(step) : names.length);
    node = properties?.[step];
  }
  return ranks;
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** The object a missing property was expected in (Pydantic's `input` for `missing`). */
function parentOf(value: unknown, path: string): unknown {
  let node: unknown = value;
  for (const part of pathOf(path).slice(0, -1)) {
    if (node === null || typeof node !== 'object') return node;
    node = (node as Record<string | number, unknown>)[part];
  }
  return node;
}

/**
 * A query string checked by its schema: a repeated parameter counts by its last value (as FastAPI's
 * scalar parameters do) and texts become the numbers and booleans the schema asks for before the check.
 */
export function parseQuery<S extends TSchema>(check: Checked<S>, query: unknown): Static<S> {
  const given: Record<string, unknown> = {};
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) given[name] = Array.isArray(value) ? value.at(-1) : value;
  return check.parse(Value.Default(check.schema, Value.Convert(check.schema, given)));
}
