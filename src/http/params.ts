/**
 * Request parameters: declared once per route (derived from the registry), each declaration giving
 * its TypeBox schema (the OpenAPI document's `querystring` and `params`), its parsed type (`ParsedOf`)
 * and its parsing, with the original implementation's rules and Pydantic's error shapes (contract,
 * "Search parameters" and "Errors"). The rules are the contract's, not JSON Schema's: a fraction typed
 * with dots and spaces, an integer with spaces around it, an empty value as none, `int_parsing`.
 */
import { Type } from '@sinclair/typebox';
import type { TObject, TSchema } from '@sinclair/typebox';
import type { FilterRule } from '../record-sets/define.js';
import { FRACTION_HELP, US_FRACTION_HELP } from '../record-sets/filters.js';
import type { ValidationDetail } from './errors.js';
import { RequestValidationError } from './errors.js';
import { isIsoDate } from '../store/versions.js';
import { typedDigits } from '../fraccion.js';

/** How a parameter's text is read: a filter's by its rule's name, plus free text and dates. */
export type ParamKind = FilterRule | 'text' | 'date';

export interface ParamSpec {
  readonly name: string;
  readonly in: 'query' | 'path';
  readonly kind: ParamKind;
  readonly description: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: number;
  readonly maxLength?: number;
  /** Query parameters are optional unless this says otherwise; path parameters always required. */
  readonly required?: boolean;
}

/** skip and limit, as every search has them. */
export const PAGING = [
  { name: 'skip', in: 'query', kind: 'int', minimum: 0, default: 0, description: 'Number of records to skip' },
  { name: 'limit', in: 'query', kind: 'int', minimum: 1, maximum: 1000, default: 100, description: 'Maximum number of records returned' },
] as const satisfies readonly ParamSpec[];

export type ParsedValue = string | number;
export type Parsed = Record<string, ParsedValue | undefined>;

/** Kinds whose blank value (spaces, dots) counts as none, even in the path. */
type BlankAsNone = 'fraction' | 'us-fraction' | 'nico' | 'code';

/** What one parameter is once parsed: a number or a text; absent unless it has a default or is a path parameter that cannot be blank. */
type ParsedParam<S extends ParamSpec> =
  | (S['kind'] extends 'int' ? number : string)
  | (S extends { readonly default: number } ? never : S extends { readonly in: 'path' } ? (S['kind'] extends BlankAsNone ? undefined : never) : undefined);

/**
 * The parameters of declarations written as literals (`as const satisfies readonly ParamSpec[]`) as
 * parseParams gives them; declarations built at run time (the registry's) give `Parsed`.
 */
export type ParsedOf<S extends readonly ParamSpec[]> = string extends S[number]['name'] ? Parsed : { [P in S[number] as P['name']]: ParsedParam<P> };

const FRACTION_PATTERN = '^[0-9]{1,8}$|^[0-9]{10}$';
const US_FRACTION_PATTERN = '^[0-9]{1,10}$';
const NICO_PATTERN = '^[0-9]{2}$';
const INTEGER = /^\s*[+-]?\d+\s*$/;

/**
 * The bounds of an integer parameter: its own, else what a number holds exactly. A value past them is
 * a 422 naming the bound, never a value silently clamped to it.
 */
const intBounds = (p: ParamSpec): { ge: number; le: number } => ({
  ge: p.minimum ?? -Number.MAX_SAFE_INTEGER,
  le: p.maximum ?? Number.MAX_SAFE_INTEGER,
});

/** The TypeBox schema of one parameter, for the OpenAPI document. */
export function paramSchema(p: ParamSpec): TSchema {
  const base = { description: p.description };
  switch (p.kind) {
    case 'int': {
      const { ge, le } = intBounds(p);
      return Type.Integer({ ...base, minimum: ge, maximum: le, default: p.default });
    }
    case 'fraction':
      return Type.String({ ...base, examples: ['0101.21.01'], 'x-accepted-pattern': FRACTION_PATTERN });
    case 'us-fraction':
      return Type.String({ ...base, examples: ['0101.21.00.10'], 'x-accepted-pattern': US_FRACTION_PATTERN });
    case 'nico':
      return Type.String({ ...base, pattern: NICO_PATTERN, examples: ['00'] });
    case 'code':
      return Type.String({ ...base, maxLength: p.maxLength });
    case 'text':
      return Type.String({ ...base, minLength: p.required ? 1 : undefined, maxLength: p.maxLength });
    case 'date':
      return Type.String({ ...base, format: 'date', examples: ['2023-01-15'] });
  }
}

/** The `querystring` and `params` schemas (TypeBox objects) Fastify and the OpenAPI generator take, for the parts a route has. */
export function partSchemas(specs: readonly ParamSpec[]): { querystring?: TObject; params?: TObject } {
  const part = (where: 'query' | 'path'): TObject | undefined => {
    const mine = specs.filter((s) => s.in === where);
    if (mine.length === 0) return undefined;
    const required = (s: ParamSpec): boolean => where === 'path' || s.required === true;
    return Type.Object(Object.fromEntries(mine.map((s) => [s.name, required(s) ? paramSchema(s) : Type.Optional(paramSchema(s))])));
  };
  const querystring = part('query');
  const params = part('path');
  return { ...(querystring && { querystring }), ...(params && { params }) };
}

/** Fastify gives a route its path parameters and query as objects of texts (arrays for a repeated name). */
export const fields = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/** The last value when a parameter is repeated, as FastAPI takes it for a scalar. */
function single(value: unknown): string | undefined {
  if (Array.isArray(value)) return single(value[value.length - 1]);
  return typeof value === 'string' ? value : undefined;
}

type Outcome = { value: ParsedValue | undefined } | { error: Omit<ValidationDetail, 'loc'> };

function parseOne(spec: ParamSpec, raw: string): Outcome {
  switch (spec.kind) {
    case 'int': {
      if (!INTEGER.test(raw)) {
        return {
          error: { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer', input: raw },
        };
      }
      const n = Number(raw.trim());
      const { ge, le } = intBounds(spec);
      if (n < ge) {
        return { error: { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${ge}`, input: raw, ctx: { ge } } };
      }
      if (n > le) {
        return { error: { type: 'less_than_equal', msg: `Input should be less than or equal to ${le}`, input: raw, ctx: { le } } };
      }
      return { value: n };
    }
    case 'fraction':
    case 'us-fraction': {
      const digits = typedDigits(raw);
      if (digits === '' && raw.trim() === '') return { value: undefined };
      const max = spec.kind === 'fraction' ? 8 : 10;
      if (/^\d+$/.test(digits) && (digits.length <= max || (spec.kind === 'fraction' && digits.length === 10))) {
        return { value: digits };
      }
      const pattern = spec.kind === 'fraction' ? FRACTION_PATTERN : US_FRACTION_PATTERN;
      const accepted = spec.kind === 'fraction' ? FRACTION_HELP : US_FRACTION_HELP;
      return { error: { type: 'string_pattern_mismatch', msg: accepted, input: raw, ctx: { pattern } } };
    }
    case 'nico': {
      const value = raw.trim();
      if (value === '') return { value: undefined };
      if (/^\d{2}$/.test(value)) return { value };
      return {
        error: { type: 'string_pattern_mismatch', msg: `String should match pattern '${NICO_PATTERN}'`, input: raw, ctx: { pattern: NICO_PATTERN } },
      };
    }
    case 'code': {
      const value = raw.trim().toUpperCase();
      return { value: value === '' ? undefined : value };
    }
    case 'text':
      return { value: raw };
    case 'date': {
      const value = raw.trim();
      if (isIsoDate(value)) return { value };
      return { error: { type: 'date_parsing', msg: 'Input should be a valid date in the format YYYY-MM-DD', input: raw } };
    }
  }
}

/**
 * Parses path and query parameters together so that every failing one is reported in one 422,
 * path first, then query, as FastAPI does. Empty strings count as not given; unknown names are ignored.
 */
export function parseParams<const S extends readonly ParamSpec[]>(
  specs: S,
  path: Readonly<Record<string, unknown>>,
  query: Readonly<Record<string, unknown>>,
): ParsedOf<S> {
  const parsed: Parsed = {};
  const errors: ValidationDetail[] = [];
  for (const spec of specs) {
    const raw = single(spec.in === 'path' ? path[spec.name] : query[spec.name]);
    if (raw === undefined || raw === '') {
      if (spec.in === 'path') errors.push({ type: 'missing', loc: ['path', spec.name], msg: 'Field required', input: null });
      parsed[spec.name] = spec.default;
      continue;
    }
    const outcome = parseOne(spec, raw);
    if ('error' in outcome) errors.push({ ...outcome.error, loc: [spec.in, spec.name] });
    else parsed[spec.name] = outcome.value ?? spec.default;
  }
  if (errors.length > 0) throw new RequestValidationError(errors);
  // Each value parsed by its declaration's rule, absent only where ParsedOf says it may be.
  return parsed as ParsedOf<S>;
}
