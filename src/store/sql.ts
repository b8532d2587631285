/**
 * Pure SQL building from a record-set declaration: no database here, so every query shape can be
 * tested on its own. Identifiers are always quoted (the registry's upper-case names survive on
 * PostgreSQL too); values are always bound parameters.
 */
import type { Field, RecordSet } from '../record-sets/define.js';
import { filterIndexes } from '../record-sets/filters.js';
import { prefixUpperBound, quote } from '../sql-text.js';

export type Condition =
  | { readonly kind: 'eq'; readonly field: string; readonly value: string | number }
  /** Text starting with `value`, written as a range so that a plain B-tree index serves it. */
  | { readonly kind: 'prefix'; readonly field: string; readonly value: string }
  /** Case-insensitive equality; `value` is already upper-case. */
  | { readonly kind: 'ci'; readonly field: string; readonly value: string }
  | { readonly kind: 'null'; readonly field: string }
  | { readonly kind: 'or'; readonly any: readonly Condition[] };

export interface Dialect {
  placeholder(index: number): string;
}

export const sqliteDialect: Dialect = { placeholder: () => '?' };
export const postgresDialect: Dialect = { placeholder: (i) => `$${i}` };

export interface SqlQuery {
  readonly text: string;
  readonly values: readonly (string | number)[];
}

export { prefixUpperBound, quote } from '../sql-text.js';

function columnList(rs: RecordSet): string {
  return rs.fields.map((f) => quote(f.name)).join(', ');
}

function whereClause(conditions: readonly Condition[], dialect: Dialect, values: (string | number)[]): string {
  const bind = (v: string | number): string => {
    values.push(v);
    return dialect.placeholder(values.length);
  };
  const render = (c: Condition): string => {
    switch (c.kind) {
      case 'eq':
        return `${quote(c.field)} = ${bind(c.value)}`;
      case 'prefix':
        return `(${quote(c.field)} >= ${bind(c.value)} AND ${quote(c.field)} < ${bind(prefixUpperBound(c.value))})`;
      case 'ci':
        return `UPPER(${quote(c.field)}) = ${bind(c.value)}`;
      case 'null':
        return `${quote(c.field)} IS NULL`;
      case 'or':
        return `(${alternatives(c.any).map(renderAlternative).join(' OR ')})`;
    }
  };
  const renderAlternative = (a: Condition | InList): string => ('kind' in a ? render(a) : `${quote(a.field)} IN (${a.values.map(bind).join(', ')})`);
  return conditions.length === 0 ? '' : ` WHERE ${conditions.map(render).join(' AND ')}`;
}

/** Equalities of one field, one of whose values a row must hold. */
interface InList {
  readonly field: string;
  readonly values: (string | number)[];
}

/**
 * An `or`'s members with nested `or`s flattened and the equalities on one field gathered into one
 * `IN` list (a batch reads the records of a hundred fractions at once): the same rows, but one index
 * probe per value instead of SQLite's OR of a hundred branches, which it answers three to ten times
 * slower, or not by the index at all.
 */
function alternatives(any: readonly Condition[]): (Condition | InList)[] {
  const out: (Condition | InList)[] = [];
  const lists = new Map<string, InList>();
  const flat = (cs: readonly Condition[]): Condition[] => cs.flatMap((c) => (c.kind === 'or' ? flat(c.any) : [c]));
  const all = flat(any);
  const counts = new Map<string, number>();
  for (const c of all) if (c.kind === 'eq') counts.set(c.field, (counts.get(c.field) ?? 0) + 1);
  for (const c of all) {
    if (c.kind !== 'eq' || counts.get(c.field)! < 2) {
      out.push(c);
      continue;
    }
    const list = lists.get(c.field);
    if (list) list.values.push(c.value);
    else {
      const created = { field: c.field, values: [c.value] };
      lists.set(c.field, created);
      out.push(created);
    }
  }
  return out;
}

const orderBy = (rs: RecordSet): string => ` ORDER BY ${rs.key.map(quote).join(', ')}`;

export function buildSearch(rs: RecordSet, conditions: readonly Condition[], skip: number, limit: number, dialect: Dialect): SqlQuery {
  const values: (string | number)[] = [];
  const where = whereClause(conditions, dialect, values);
  const text = `SELECT ${columnList(rs)} FROM ${quote(rs.table)}${where}${orderBy(rs)} LIMIT ${bindNumber(values, limit, dialect)} OFFSET ${bindNumber(values, skip, dialect)}`;
  return { text, values };
}

function bindNumber(values: (string | number)[], n: number, dialect: Dialect): string {
  values.push(n);
  return dialect.placeholder(values.length);
}

export function buildCount(rs: RecordSet, conditions: readonly Condition[], dialect: Dialect): SqlQuery {
  const values: (string | number)[] = [];
  const where = whereClause(conditions, dialect, values);
  return { text: `SELECT COUNT(*) AS "total" FROM ${quote(rs.table)}${where}`, values };
}

/** Lookup by the identifier: its values are bound in the order of `rs.key`. */
export function buildLookup(rs: RecordSet, dialect: Dialect): string {
  const where = rs.key.map((k, i) => `${quote(k)} = ${dialect.placeholder(i + 1)}`).join(' AND ');
  return `SELECT ${columnList(rs)} FROM ${quote(rs.table)} WHERE ${where}`;
}

/** The sizes a lookup of several records is padded to, so that a store prepares a few statements per record set, not one per page size. */
const LOOKUP_SIZES = [1, 10, 100, 1000];

/** Several records by identifier in one statement (a page of cambios); `keys` (at least one) padded by repeating the last. */
export function buildLookupMany(rs: RecordSet, keys: readonly (readonly (string | number)[])[], dialect: Dialect): SqlQuery {
  const size = LOOKUP_SIZES.find((s) => s >= keys.length) ?? keys.length;
  const padded = [...keys, ...Array.from({ length: size - keys.length }, () => keys[keys.length - 1]!)];
  let at = 0;
  const one = (): string => dialect.placeholder(++at);
  const tuple = (): string => (rs.key.length === 1 ? one() : `(${rs.key.map(one).join(', ')})`);
  const columns = rs.key.length === 1 ? quote(rs.key[0]!) : `(${rs.key.map(quote).join(', ')})`;
  return { text: `SELECT ${columnList(rs)} FROM ${quote(rs.table)} WHERE ${columns} IN (${padded.map(tuple).join(', ')})`, values: padded.flat() };
}

export function buildInsert(rs: RecordSet, dialect: Dialect): string {
  const marks = rs.fields.map((_, i) => dialect.placeholder(i + 1)).join(', ');
  return `INSERT INTO ${quote(rs.table)} (${columnList(rs)}) VALUES (${marks})`;
}

/** Which dataset is loaded: one row, written by every load and shown by /health; the same on both stores. */
export const DATASET_INFO_DDL = `CREATE TABLE IF NOT EXISTS "dataset_info" (
  "id" INTEGER PRIMARY KEY CHECK ("id" = 1),
  "source" TEXT NOT NULL,
  "imported_at" TEXT NOT NULL,
  "hash" TEXT NOT NULL,
  "counts" TEXT NOT NULL
)`;

export type ColumnType = (field: Field) => string;

export function buildCreateTable(rs: RecordSet, columnType: ColumnType): string {
  const columns = rs.fields.map((f) => {
    const notNull = rs.key.includes(f.name) ? ' NOT NULL' : '';
    return `  ${quote(f.name)} ${columnType(f)}${notNull}`;
  });
  columns.push(`  PRIMARY KEY (${rs.key.map(quote).join(', ')})`);
  return `CREATE TABLE ${quote(rs.table)} (\n${columns.join(',\n')}\n)`;
}

/** The indexes the filters need (their rules say which: src/record-sets/filters.ts), and one per fixed search. */
export function buildIndexes(rs: RecordSet): string[] {
  const statements: string[] = [];
  const add = (name: string, expression: string): void => {
    statements.push(`CREATE INDEX ${quote(`${rs.table}_${name}`)} ON ${quote(rs.table)} (${expression})`);
  };
  for (const index of filterIndexes(rs)) {
    add(index.name, index.columns.map((c) => (index.upperCase ? `UPPER(${quote(c)})` : quote(c))).join(', '));
  }
  for (const s of rs.fixedSearches) {
    add(s.segment, Object.keys(s.where).map(quote).join(', '));
  }
  return statements;
}
