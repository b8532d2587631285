/**
 * The shape of a record-set declaration. Everything the service does with a record set (table DDL,
 * import validation, routes, request and response schemas, SQL, OpenAPI) is derived from one of these.
 */
import type { ContribucionesUse } from './roles.js';
import { namedFields } from './roles.js';
import { ruleOf } from './filters.js';

export type FieldType =
  | { readonly kind: 'int' }
  | { readonly kind: 'str'; readonly length: number }
  | { readonly kind: 'text' }
  | { readonly kind: 'dec'; readonly precision: number; readonly scale: number }
  | { readonly kind: 'date8' };

export interface Field {
  readonly name: string;
  readonly type: FieldType;
  /** What the field holds, as a client reads it: the declaration's words, then the notes derived from the key and filters. */
  readonly description?: string;
}

export const int = (): FieldType => ({ kind: 'int' });
export const str = (length: number): FieldType => ({ kind: 'str', length });
export const text = (): FieldType => ({ kind: 'text' });
export const dec = (precision: number, scale: number): FieldType => ({ kind: 'dec', precision, scale });
export const date8 = (): FieldType => ({ kind: 'date8' });

/**
 * How a query parameter narrows a search; what each rule means is in `filters.ts`.
 * - `fraction`: a Mexican tariff fraction in any typed form (contract: 8 digits exact, 10 digits
 *   fraction + NICO, 1..7 a prefix). `fields` are the columns holding the 8-digit code (the first is
 *   the undotted one; an optional second holds the same code with dots), `nicoField` the NICO column.
 * - `us-fraction`: a US HTS code of up to 10 digits, matched as a prefix of `field`.
 * - `nico`: exactly two digits, exact match.
 * - `code`: exact match after trimming, case-insensitive (country, sector, article).
 * - `int`: an integer, exact match.
 */
export interface FractionFilter {
  readonly param: string;
  readonly rule: 'fraction';
  readonly field: string;
  readonly dottedField?: string;
  readonly nicoField: string;
}

export type Filter =
  | FractionFilter
  | { readonly param: string; readonly rule: 'us-fraction'; readonly field: string }
  | { readonly param: string; readonly rule: 'nico'; readonly field: string }
  | { readonly param: string; readonly rule: 'code'; readonly field: string }
  | { readonly param: string; readonly rule: 'int'; readonly field: string };

export type FilterRule = Filter['rule'];

/** The parameter that finds a record set's records of one fraction, the one the ficha reads. */
export const FRACTION_PARAM = 'fraccion';

/** A further search under the record set's path whose records all hold fixed values (e.g. `/tipat`). */
export interface FixedSearch {
  readonly segment: string;
  readonly summary: string;
  readonly where: Readonly<Record<string, string>>;
}

export interface RecordSet {
  /** Path segment under /api/v1, e.g. `precios-estimados2`. */
  readonly path: string;
  /** Response schema name of the interface, e.g. `Aladi2Response`. */
  readonly schema: string;
  /** Name used in messages such as "Aladi2 record not found". */
  readonly label: string;
  readonly table: string;
  /** One line on what the record set means in Mexican trade practice. */
  readonly description: string;
  readonly fields: readonly Field[];
  /** Identifier columns in order; their lower-case names are the lookup's path parameters. */
  readonly key: readonly string[];
  readonly filters: readonly Filter[];
  readonly paginated: boolean;
  readonly fixedSearches: readonly FixedSearch[];
  /** What its records mean for the contributions of an import (src/record-sets/roles.ts). */
  readonly contribuciones?: ContribucionesUse;
  /** The column holding the country a record applies to (Anexo 22 apéndice 4); a record without one applies to every country. */
  readonly country: string | undefined;
}

/** A type-only mark: the field names a list of fields was declared with (see `fields` and `RowOf`). */
declare const FIELD_NAMES: unique symbol;

/** Fields that remember their names in their type, so that a record set's row type follows from them. */
export type NamedFields<N extends string> = Field[] & { readonly [FIELD_NAMES]?: N };

/**
 * A record of a record set as a generator writes it: only the declared fields, each optional (a field
 * left out is null). `RowOf<typeof fracciones>` rejects a misspelt field name at compile time.
 */
export type RowOf<RS> = RS extends { readonly [FIELD_NAMES]?: infer N extends string } ? { [K in N]?: unknown } : never;

export interface RecordSetInput<N extends string = string, P extends string = string, F extends readonly Filter[] = readonly Filter[]> {
  path: P;
  schema: string;
  description: string;
  fields: readonly Field[] & { readonly [FIELD_NAMES]?: N };
  key?: readonly string[];
  filters: F;
  paginated?: boolean;
  fixedSearches?: readonly FixedSearch[];
  contribuciones?: ContribucionesUse;
  country?: string;
}

/**
 * A record set as declared, its type remembering what the answers' types follow from: its path and
 * filters as written (literals), and its field names. The ficha's type is derived from these.
 */
export type DeclaredRecordSet<N extends string, P extends string, F extends readonly Filter[]> = RecordSet & {
  readonly path: P;
  readonly filters: F;
  readonly [FIELD_NAMES]?: N;
};

/** Builds a declaration, filling the names that follow from the others and checking it is coherent. */
export function defineRecordSet<N extends string, const P extends string, const F extends readonly Filter[]>(
  input: RecordSetInput<N, P, F>,
): DeclaredRecordSet<N, P, F> {
  const key = input.key ?? ['SYSID'];
  const names = new Set(input.fields.map((f) => f.name));
  const check = (name: string, what: string): void => {
    if (!names.has(name)) throw new Error(`record set ${input.path}: ${what} ${name} is not a field`);
  };
  for (const k of key) check(k, 'key');
  for (const f of input.filters) {
    check(f.field, `filter ${f.param}`);
    if (f.rule === 'fraction') {
      check(f.nicoField, `filter ${f.param} NICO`);
      if (f.dottedField) check(f.dottedField, `filter ${f.param} dotted`);
    }
  }
  for (const s of input.fixedSearches ?? []) for (const name of Object.keys(s.where)) check(name, 'fixed search');
  if (input.contribuciones) for (const name of namedFields(input.contribuciones)) check(name, 'contribution role');
  if (input.country !== undefined) check(input.country, 'country');
  if (names.size !== input.fields.length) throw new Error(`record set ${input.path}: duplicate field`);
  const params = new Set(input.filters.map((f) => f.param));
  if (params.size !== input.filters.length) throw new Error(`record set ${input.path}: duplicate filter parameter`);
  return {
    path: input.path,
    schema: input.schema,
    label: input.schema.replace(/Response$/, ''),
    table: input.path.replace(/-/g, '_'),
    description: input.description,
    fields: input.fields.map((f) => withNotes(f, input.path, key, input.filters)),
    key,
    filters: input.filters,
    paginated: input.paginated ?? false,
    fixedSearches: input.fixedSearches ?? [],
    ...(input.contribuciones && { contribuciones: input.contribuciones }),
    country: input.country,
  };
}

/** The declaration's words on a field, followed by what its place in the key and the filters tells a client. */
function withNotes(field: Field, path: string, key: readonly string[], filters: readonly Filter[]): Field {
  const notes = field.description === undefined ? [] : [field.description];
  if (key.includes(field.name)) {
    const lookup = `GET /api/v1/${path}/${key.map((k) => `{${k.toLowerCase()}}`).join('/')}`;
    notes.push(`${key.length === 1 ? 'identifier' : 'part of the identifier'} of the record (${lookup})`);
  }
  const params = filters.filter((f) => ruleOf(f).searched(f).includes(field.name)).map((f) => `?${f.param}=`);
  if (params.length > 0) notes.push(`searched with ${params.join(' or ')}`);
  return notes.length === 0 ? field : { ...field, description: notes.join('; ') };
}

/** The usual filters: `fraccion` (with its NICO) and `nico`. */
export function fractionFilters(
  field = 'FRACCION',
  nicoField = 'NICO',
): [FractionFilter & { readonly param: typeof FRACTION_PARAM }, { readonly param: 'nico'; readonly rule: 'nico'; readonly field: string }] {
  return [
    { param: FRACTION_PARAM, rule: 'fraction', field, nicoField },
    { param: 'nico', rule: 'nico', field: nicoField },
  ];
}

/**
 * A record set's type when it has its own fraction filter (`fraccion`, by Mexican fraction), as
 * `ownFractionFilter` finds it, else never: a filter declared with a wider type than its literals
 * does not count, so that a type built from this never names a record set the answer lacks.
 */
export type WithOwnFraction<RS> = RS extends { readonly filters: readonly (infer F)[] }
  ? [Extract<F, { readonly param: typeof FRACTION_PARAM; readonly rule: 'fraction' }>] extends [never]
    ? never
    : RS
  : never;

/**
 * A record of a record set as an answer holds it: every declared field, null when the record has no
 * value; of a record set whose type does not name its fields (one of `RecordSet[]`), any field.
 */
export type RecordOf<RS> = RS extends { readonly [FIELD_NAMES]?: infer N extends string }
  ? string extends N
    ? Readonly<Record<string, string | number | null>>
    : { readonly [K in N]: string | number | null }
  : RS extends RecordSet
    ? Readonly<Record<string, string | number | null>>
    : never;

/** A record set's own fraction filter (`fraccion`, by Mexican fraction), if it has one. */
export function ownFractionFilter(rs: RecordSet): FractionFilter | undefined {
  return rs.filters.find((f): f is FractionFilter => f.rule === 'fraction' && f.param === FRACTION_PARAM);
}

type FieldSpec = FieldType | readonly [FieldType, string];

/** Fields in declaration order, one line each: `NAME: type` or `NAME: [type, 'what it holds']`. */
export function fields<const S extends Readonly<Record<string, FieldSpec>>>(spec: S): NamedFields<Extract<keyof S, string>> {
  return Object.entries(spec).map(([name, s]: [string, FieldSpec]) =>
    Array.isArray(s) ? { name, type: s[0] as FieldType, description: s[1] as string } : { name, type: s as FieldType },
  );
}
