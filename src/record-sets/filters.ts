/**
 * The filter rules: one table, keyed by rule, of everything a rule means besides reading the
 * parameter's text (that is src/http/params.ts): what the parameter is for, the conditions a value
 * puts on the record set's columns, and the indexes that keep those conditions from scanning a table.
 */
import { dotted } from '../fraccion.js';
import type { Condition } from '../store/sql.js';
import type { Filter, FilterRule, FractionFilter, RecordSet } from './define.js';

/** A parameter's value once parsed: digits for codes, upper-case text for `code`, a number for `int`. */
export type FilterValue = string | number;

/** An index a filter needs: its name's suffix and its columns, compared upper-cased when `upperCase`. */
export interface FilterIndex {
  readonly name: string;
  readonly columns: readonly string[];
  readonly upperCase: boolean;
}

export interface Rule<F extends Filter = Filter> {
  /** What the parameter does, as the OpenAPI document tells a client. */
  readonly describe: (filter: F) => string;
  /** The column a client would say the parameter searches (also the dotted copy of a fraction). */
  readonly searched: (filter: F) => readonly string[];
  readonly conditions: (filter: F, value: FilterValue) => Condition[];
  readonly indexes: (filter: F) => readonly FilterIndex[];
}

export const FRACTION_HELP =
  'Tariff fraction: 8 digits (01012101), 10 digits for fraction + NICO (0101210100), or 1 to 7 digits for every fraction starting with them; dots and spaces are ignored (0101.21.01).';
export const US_FRACTION_HELP = 'US HTS code of 1 to 10 digits, with or without dots: the line with that code and every line under it.';

/** 8 digits: that fraction; 10: that fraction and NICO; fewer: every fraction starting with them. */
function fractionConditions(field: string, nicoField: string, digits: string, dottedForm: boolean): Condition[] {
  const code = dottedForm ? dotted(digits.slice(0, 8)) : digits.slice(0, 8);
  if (digits.length === 10)
    return [
      { kind: 'eq', field, value: code },
      { kind: 'eq', field: nicoField, value: digits.slice(8) },
    ];
  if (digits.length === 8) return [{ kind: 'eq', field, value: code }];
  return [{ kind: 'prefix', field, value: code }];
}

const plainIndex = (field: string): FilterIndex[] => [{ name: field.toLowerCase(), columns: [field], upperCase: false }];

const fraction: Rule<FractionFilter> = {
  describe: () => FRACTION_HELP,
  searched: (f) => (f.dottedField ? [f.field, f.dottedField] : [f.field]),
  // A record set holding the code both ways (ieps) is matched on either, whichever form a row was loaded with.
  conditions: (f, value) => {
    const digits = String(value);
    const plain = fractionConditions(f.field, f.nicoField, digits, false);
    if (!f.dottedField) return plain;
    const [first, ...rest] = plain;
    const [dottedFirst] = fractionConditions(f.dottedField, f.nicoField, digits, true);
    return first && dottedFirst ? [{ kind: 'or', any: [first, dottedFirst] }, ...rest] : plain;
  },
  // The code with its NICO: exact and prefix searches use the leading column, 10 digits both.
  indexes: (f) => [{ name: f.field.toLowerCase(), columns: [f.field, f.nicoField], upperCase: false }, ...(f.dottedField ? plainIndex(f.dottedField) : [])],
};

type Rules = { readonly [R in FilterRule]: Rule<Extract<Filter, { rule: R }>> };

export const filterRules: Rules = {
  fraction,
  'us-fraction': {
    describe: () => US_FRACTION_HELP,
    searched: (f) => [f.field],
    conditions: (f, value) => [{ kind: 'prefix', field: f.field, value: String(value) }],
    indexes: (f) => plainIndex(f.field),
  },
  nico: {
    describe: () => 'NICO: exactly two digits',
    searched: (f) => [f.field],
    conditions: (f, value) => [{ kind: 'eq', field: f.field, value }],
    indexes: (f) => plainIndex(f.field),
  },
  code: {
    // No maxLength: a longer value is not an error, it simply matches nothing.
    describe: (f) => `${f.field}: exact match after trimming, case-insensitive`,
    searched: (f) => [f.field],
    conditions: (f, value) => [{ kind: 'ci', field: f.field, value: String(value) }],
    indexes: (f) => [{ name: f.field.toLowerCase(), columns: [f.field], upperCase: true }],
  },
  int: {
    describe: (f) => `${f.field}: exact match`,
    searched: (f) => [f.field],
    conditions: (f, value) => [{ kind: 'eq', field: f.field, value }],
    indexes: (f) => plainIndex(f.field),
  },
};

/** The rule of a filter, typed for that filter (the table's type says each rule takes its own kind). */
export const ruleOf = <F extends Filter>(filter: F): Rule<F> => filterRules[filter.rule] as unknown as Rule<F>;

/** The conditions one filter's value puts on the record set's columns. */
export const filterConditions = (filter: Filter, value: FilterValue): Condition[] => ruleOf(filter).conditions(filter, value);

/** The conditions of a search: every filter given a value, ANDed. */
export function searchConditions(rs: RecordSet, values: Readonly<Record<string, FilterValue | undefined>>): Condition[] {
  return rs.filters.flatMap((f) => {
    const value = values[f.param];
    return value === undefined ? [] : filterConditions(f, value);
  });
}

/** Every index the filters of a record set need, each once. */
export function filterIndexes(rs: RecordSet): FilterIndex[] {
  const byName = new Map<string, FilterIndex>();
  for (const f of rs.filters) for (const index of ruleOf(f).indexes(f)) if (!byName.has(index.name)) byName.set(index.name, index);
  return [...byName.values()];
}
