/**
 * The record-set routes, derived from the registry: for each record set a search (plus its fixed
 * searches such as /fundamentos-tlc/tipat) and a lookup by identifier. Nothing here is written per
 * record set.
 */
import { Type } from '@sinclair/typebox';
import type { Static, TSchema, TUnsafe } from '@sinclair/typebox';
import type { Filter, RecordSet } from '../record-sets/define.js';
import type { Condition } from '../store/sql.js';
import type { Row, Store } from '../store/store.js';
import { ruleOf, searchConditions } from '../record-sets/filters.js';
import { refusal } from './errors.js';
import { pathParams, queryParams } from './contract.js';
import type { ParamSpec, Parsed } from './params.js';
import { PAGING } from './params.js';
import type { ProtectedGet } from './route-kinds.js';
import { pageSchemaName, recordRef, recordsOf } from './schemas.js';
import type { StoreTimer } from './observe.js';
import { typedDigits } from '../fraccion.js';

export interface Page {
  items: Row[];
  total: number;
  skip: number;
  limit: number;
}

/** A record route; `S` is its 200's schema: a search's records (a page of them for a paginated record set), or a lookup's record. */
export interface RecordRoute<S extends TSchema = TSchema> {
  readonly kind: 'search' | 'lookup';
  readonly url: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tag: string;
  readonly params: readonly ParamSpec[];
  /** The 200's schema (the record set's schemas are registered under their names), of the type `run` answers. */
  readonly response: S;
  readonly run: (store: Store, params: Parsed) => Promise<Static<S>>;
}

/** A filter's query parameter: parsed by its rule's name, documented by its rule. */
const filterParam = (f: Filter): ParamSpec => ({ name: f.param, in: 'query', kind: f.rule, description: ruleOf(f).describe(f) });

/** A search's 200: a page of records for a paginated record set, else its records. */
type SearchSchema = TUnsafe<Page> | ReturnType<typeof recordsOf<RecordSet>>;

/** Where a record route's answer comes from, as every record route's description ends. */
const FROM_VERSION = 'Answered from the dataset version in force today, or on the date `as_of` names.';

function searchRoute(rs: RecordSet, url: string, operationId: string, summary: string, fixed: Condition[]): RecordRoute<SearchSchema> {
  const params = [...rs.filters.map(filterParam), ...PAGING];
  const only = fixed.map((c) => (c.kind === 'eq' ? `${c.field} is ${String(c.value)}` : '')).filter((c) => c !== '');
  const which = only.length > 0 ? `The records where ${only.join(' and ')} that match` : 'The records that match';
  const page = rs.paginated ? 'a page of them (skip, limit) with the total' : 'at most `limit` of them after `skip`';
  return {
    kind: 'search',
    url,
    operationId,
    summary,
    description: `${rs.description} ${which} every filter given (a filter left out matches everything): ${page}. ${FROM_VERSION}`,
    tag: rs.path,
    params,
    response: rs.paginated ? Type.Unsafe<Page>({ $ref: `${pageSchemaName(rs)}#` }) : recordsOf(rs),
    run: async (store, parsed) => {
      const conditions = [...fixed, ...searchConditions(rs, parsed)];
      const skip = parsed['skip'] as number;
      const limit = parsed['limit'] as number;
      const items = await store.search(rs, { conditions, skip, limit });
      if (!rs.paginated) return items;
      const total = items.length < limit && (items.length > 0 || skip === 0) ? skip + items.length : await store.count(rs, conditions);
      return { items, total, skip, limit };
    },
  };
}

function lookupRoute(rs: RecordSet): RecordRoute<ReturnType<typeof recordRef<RecordSet>>> {
  const params: ParamSpec[] = rs.key.map((k) => {
    const isInt = rs.fields.find((f) => f.name === k)?.type.kind === 'int';
    return { name: k.toLowerCase(), in: 'path', kind: isInt ? 'int' : 'text', description: `${k} of the record` };
  });
  return {
    kind: 'lookup',
    url: `/api/v1/${rs.path}/${params.map((p) => `:${p.name}`).join('/')}`,
    operationId: `get_${rs.table}`,
    summary: `Get one ${rs.label} record by ${rs.key.join(' and ')}`,
    description: `${rs.description} The record whose ${rs.key.join(' and ')} the path gives; 404 when there is none. ${FROM_VERSION}`,
    tag: rs.path,
    params,
    response: recordRef(rs),
    run: async (store, parsed) => {
      // A fraction in the key is matched as stored (8 digits), whatever dots or spaces it was typed with.
      const key = params.map((p) => {
        const value = parsed[p.name] as string | number;
        return typeof value === 'string' ? typedDigits(value) : value;
      });
      const row = await store.lookup(rs, key);
      if (!row) throw refusal('RECORD_NOT_FOUND', { label: rs.label });
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

/** A record route as a protected, cached GET; the store's time is measured per record set and operation. */
export function recordGet<S extends TSchema>(route: RecordRoute<S>, timer: StoreTimer): ProtectedGet<Parsed, Parsed, Parsed, S> {
  const common = {
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tag: route.tag,
    ok: route.response,
    compute: (store: Store, params: Parsed) => timer.time(route.tag, route.kind, () => route.run(store, params)),
  };
  // The checked parameters are normalised (fraction digits, upper-case codes, defaults); a lookup's
  // are its path's alone, so the fast path may respond to its misses too (src/http/fast-path.ts).
  if (route.kind === 'lookup') {
    return {
      ...common,
      parts: { params: pathParams(route.params) },
      parameters: ({ params }) => params,
      fromPath: true,
      responses: { 404: { description: 'No record with this identifier', $ref: 'ErrorMessage#' } },
    };
  }
  return { ...common, parts: { querystring: queryParams(route.params) }, parameters: ({ query: { as_of: _asOf, ...filters } }) => filters };
}
