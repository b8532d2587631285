/**
 * The record-set routes, derived from the registry: for each record set a search (plus its fixed
 * searches such as /fundamentos-tlc/tipat) and a lookup by identifier. Nothing here is written per
 * record set.
 */
import type { Filter, RecordSet } from '../record-sets/define.js';
import type { Condition } from '../store/sql.js';
import type { Row, Store } from '../store/store.js';
import { notFound } from './errors.js';
import type { ParamSpec, Parsed } from './params.js';
import { FRACTION_HELP, PAGING, US_FRACTION_HELP } from './params.js';
import { pageSchemaName } from './schemas.js';

export interface Page {
  items: Row[];
  total: number;
  skip: number;
  limit: number;
}

export interface RecordRoute {
  readonly kind: 'search' | 'lookup';
  readonly url: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly params: readonly ParamSpec[];
  readonly response: Record<string, unknown>;
  readonly run: (store: Store, params: Parsed) => Promise<Row[] | Page | Row>;
}

function filterParam(f: Filter): ParamSpec {
  switch (f.rule) {
    case 'fraction':
      return { name: f.param, in: 'query', kind: 'fraction', description: FRACTION_HELP };
    case 'us-fraction':
      return { name: f.param, in: 'query', kind: 'us-fraction', description: US_FRACTION_HELP };
    case 'nico':
      return { name: f.param, in: 'query', kind: 'nico', description: 'NICO: exactly two digits' };
    case 'code':
      // No maxLength: a longer value is not an error, it simply matches nothing.
      return { name: f.param, in: 'query', kind: 'code', description: `${f.field}: exact match after trimming, case-insensitive` };
    case 'int':
      return { name: f.param, in: 'query', kind: 'int', description: `${f.field}: exact match` };
  }
}

/** Inserts the dots of the dotted form (`0101.21.01`) into a code or a prefix of one. */
export function dotted(digits: string): string {
  const parts = [digits.slice(0, 4), digits.slice(4, 6), digits.slice(6, 8)].filter((p) => p !== '');
  return parts.join('.') + digits.slice(8);
}

function fractionConditions(field: string, nicoField: string, digits: string, dottedForm: boolean): Condition[] {
  const code = dottedForm ? dotted(digits.slice(0, 8)) : digits.slice(0, 8);
  if (digits.length === 10) return [{ kind: 'eq', field, value: code }, { kind: 'eq', field: nicoField, value: digits.slice(8) }];
  if (digits.length === 8) return [{ kind: 'eq', field, value: code }];
  return [{ kind: 'prefix', field, value: code }];
}

/** The conditions a parsed set of filters puts on the record set's columns. */
export function conditionsFor(rs: RecordSet, parsed: Parsed): Condition[] {
  const conditions: Condition[] = [];
  for (const f of rs.filters) {
    const value = parsed[f.param];
    if (value === undefined) continue;
    switch (f.rule) {
      case 'fraction': {
        const digits = String(value);
        const plain = fractionConditions(f.field, f.nicoField, digits, false);
        if (!f.dottedField) {
          conditions.push(...plain);
          break;
        }
        const withDots = fractionConditions(f.dottedField, f.nicoField, digits, true);
        const [first, ...rest] = plain;
        const [dottedFirst] = withDots;
        if (first && dottedFirst) conditions.push({ kind: 'or', any: [first, dottedFirst] }, ...rest);
        break;
      }
      case 'us-fraction':
        conditions.push({ kind: 'prefix', field: f.field, value: String(value) });
        break;
      case 'code':
        conditions.push({ kind: 'ci', field: f.field, value: String(value) });
        break;
      case 'nico':
      case 'int':
        conditions.push({ kind: 'eq', field: f.field, value });
        break;
    }
  }
  return conditions;
}

const arrayOf = (schema: string): Record<string, unknown> => ({ type: 'array', items: { $ref: `${schema}#` } });

function searchRoute(rs: RecordSet, url: string, operationId: string, summary: string, fixed: Condition[]): RecordRoute {
  const params = [...rs.filters.map(filterParam), ...PAGING];
  return {
    kind: 'search',
    url,
    operationId,
    summary,
    tag: rs.path,
    params,
    response: rs.paginated ? { $ref: `${pageSchemaName(rs)}#` } : arrayOf(rs.schema),
    run: async (store, parsed) => {
      const conditions = [...fixed, ...conditionsFor(rs, parsed)];
      const skip = parsed['skip'] as number;
      const limit = parsed['limit'] as number;
      const items = await store.search(rs, { conditions, skip, limit });
      if (!rs.paginated) return items;
      const total = items.length < limit && (items.length > 0 || skip === 0) ? skip + items.length : await store.count(rs, conditions);
      return { items, total, skip, limit };
    },
  };
}

function lookupRoute(rs: RecordSet): RecordRoute {
  const params: ParamSpec[] = rs.key.map((k) => {
    const isInt = rs.fields.find((f) => f.name === k)?.type.kind === 'int';
    return { name: k.toLowerCase(), in: 'path', kind: isInt ? 'int' : 'text', description: `${k} of the record` };
  });
  return {
    kind: 'lookup',
    url: `/api/v1/${rs.path}/${params.map((p) => `:${p.name}`).join('/')}`,
    operationId: `get_${rs.table}`,
    summary: `Get one ${rs.label} record by ${rs.key.join(' and ')}`,
    tag: rs.path,
    params,
    response: { $ref: `${rs.schema}#` },
    run: async (store, parsed) => {
      // A fraction in the key is matched as stored (8 digits), whatever dots or spaces it was typed with.
      const key = params.map((p) => {
        const value = parsed[p.name] as string | number;
        return typeof value === 'string' ? value.replace(/[.\s]/g, '') : value;
      });
      const row = await store.lookup(rs, key);
      if (!row) throw notFound(`${rs.label} record not found`);
      return row;
    },
  };
}

export function recordRoutes(recordSets: readonly RecordSet[]): RecordRoute[] {
  return recordSets.flatMap((rs) => [
    searchRoute(rs, `/api/v1/${rs.path}/`, `search_${rs.table}`, `Search ${rs.label} records`, []),
    ...rs.fixedSearches.map((s) =>
      searchRoute(
        rs,
        `/api/v1/${rs.path}/${s.segment}`,
        `search_${rs.table}_${s.segment}`,
        s.summary,
        Object.entries(s.where).map(([field, value]): Condition => ({ kind: 'eq', field, value })),
      ),
    ),
    lookupRoute(rs),
  ]);
}
