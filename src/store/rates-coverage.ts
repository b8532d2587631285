/**
 * Two things every version holds besides its record sets, written once for both stores: the
 * exchange-rate series it was loaded with (a table `tipos_cambio`, read by the rule in
 * src/tipos-cambio/rule.ts through the few rows it needs), and the SQL of its coverage (how many of
 * its fractions have at least one record of each record set with a fraction column).
 */
import type { FractionFilter, RecordSet } from '../record-sets/define.js';
import { ownFractionFilter } from '../record-sets/define.js';
import { fracciones } from '../record-sets/fracciones.js';
import { recordSets } from '../record-sets/index.js';
import type { SeriesWindow } from '../tipos-cambio/rule.js';
import type { Fix } from '../tipos-cambio/series.js';
import { TIPOS_CAMBIO_TABLE } from '../tipos-cambio/series.js';
import type { Dialect } from './sql.js';
import { quote } from './sql.js';
import type { Values } from './store.js';

export { TIPOS_CAMBIO_TABLE };

/** `keyText`: how the store names text compared byte by byte (PostgreSQL: COLLATE "C"). */
export const tiposCambioDdl = (keyText: string): string =>
  `CREATE TABLE ${quote(TIPOS_CAMBIO_TABLE)} ("FECHA" ${keyText} PRIMARY KEY, "TIPO_CAMBIO" TEXT NOT NULL)`;

export const tiposCambioInsert = (dialect: Dialect): string =>
  `INSERT INTO ${quote(TIPOS_CAMBIO_TABLE)} ("FECHA", "TIPO_CAMBIO") VALUES (${dialect.placeholder(1)}, ${dialect.placeholder(2)})`;

/** The whole series by date, as stored: part of a version's content hash. */
export const TIPOS_CAMBIO_ALL = `SELECT "FECHA", "TIPO_CAMBIO" FROM ${quote(TIPOS_CAMBIO_TABLE)} ORDER BY "FECHA"`;

/**
 * The rows the rule reads around a date, in one statement over the primary key: the first two FIX
 * held (part 0), the last (part 1) and the two last before the date (part 2). Each part is sorted again
 * in the process, since a UNION keeps no order.
 */
export function tiposCambioWindowSql(dialect: Dialect): string {
  const t = quote(TIPOS_CAMBIO_TABLE);
  const part = (n: number, where: string, order: string, limit: number): string =>
    `SELECT * FROM (SELECT ${n} AS "PARTE", "FECHA", "TIPO_CAMBIO" FROM ${t}${where} ORDER BY "FECHA" ${order} LIMIT ${limit}) AS "p${n}"`;
  return [part(0, '', 'ASC', 2), part(1, '', 'DESC', 1), part(2, ` WHERE "FECHA" < ${dialect.placeholder(1)}`, 'DESC', 2)].join(' UNION ALL ');
}

export interface WindowRow {
  readonly PARTE: number | string;
  readonly FECHA: string;
  readonly TIPO_CAMBIO: string;
}

export function toSeriesWindow(rows: readonly WindowRow[]): SeriesWindow {
  const of = (n: number): Fix[] => rows.filter((r) => Number(r.PARTE) === n).map((r) => ({ fecha: r.FECHA, tipo_cambio: r.TIPO_CAMBIO }));
  const ascending = (a: Fix, b: Fix): number => (a.fecha < b.fecha ? -1 : 1);
  return { first: of(0).sort(ascending), last: of(1)[0] ?? null, before: of(2).sort(ascending).reverse() };
}

export const EMPTY_WINDOW: SeriesWindow = { first: [], last: null, before: [] };

export const fixValues = (fix: Fix): Values => [fix.fecha, fix.tipo_cambio];

// ---------------------------------------------------------------------------------------------
// Coverage

/** How many of a version's fractions have at least one record of a record set, out of how many. */
export interface CoverageEntry {
  readonly fracciones: number;
  readonly de: number;
}
export type Coverage = Readonly<Record<string, CoverageEntry>>;

/** A record set's Mexican fraction columns: those its fraction filters search (`fracciones-anteriores` has two). */
const fractionFilters = (rs: RecordSet): FractionFilter[] => rs.filters.filter((f): f is FractionFilter => f.rule === 'fraction');

/** The record sets coverage counts: every one with a (Mexican) fraction column. */
export const coveredSets = (): RecordSet[] => recordSets.filter((rs) => fractionFilters(rs).length > 0);

const COVERAGE_TOTAL = '__de';

/**
 * One statement: per record set, the fractions of the tariff (`fracciones`) with at least one of its
 * records, matched as a ficha matches them (the 8-digit code in any of its fraction columns, or its
 * dotted form where the record set holds one), each an index probe per fraction; and the number of
 * fractions.
 */
export function coverageSql(): string {
  const master = ownFractionFilter(fracciones);
  if (!master) throw new Error(`${fracciones.path} has no fraction filter`);
  const own = `"v"."f"`;
  const dottedOwn = `SUBSTR(${own}, 1, 4) || '.' || SUBSTR(${own}, 5, 2) || '.' || SUBSTR(${own}, 7, 2)`;
  const versionFractions = `(SELECT DISTINCT ${quote(master.field)} AS "f" FROM ${quote(fracciones.table)}) AS "v"`;
  const columns = coveredSets().map((rs) => {
    const exists = (field: string, value: string): string => `EXISTS (SELECT 1 FROM ${quote(rs.table)} AS "x" WHERE "x".${quote(field)} = ${value})`;
    const match = fractionFilters(rs)
      .flatMap((filter) => [exists(filter.field, own), ...(filter.dottedField ? [exists(filter.dottedField, dottedOwn)] : [])])
      .join(' OR ');
    return `(SELECT CAST(COUNT(*) AS INTEGER) FROM ${versionFractions} WHERE ${match}) AS ${quote(rs.path)}`;
  });
  const total = `(SELECT CAST(COUNT(DISTINCT ${quote(master.field)}) AS INTEGER) FROM ${quote(fracciones.table)}) AS ${quote(COVERAGE_TOTAL)}`;
  return `SELECT ${[...columns, total].join(', ')}`;
}

export function toCoverage(row: Readonly<Record<string, unknown>> | undefined): Coverage {
  const de = Number(row?.[COVERAGE_TOTAL] ?? 0);
  return Object.fromEntries(coveredSets().map((rs) => [rs.path, { fracciones: Number(row?.[rs.path] ?? 0), de }]));
}
