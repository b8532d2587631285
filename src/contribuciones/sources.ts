/**
 * The records a computation reads, found through the registry: every record set that declares a use
 * for contributions (src/record-sets/roles.ts). Reads are batched, one query per record set and per
 * hundred fractions whatever the number of lines, and the rows are then told apart per fraction.
 */
import { setImmediate } from 'node:timers/promises';
import type { RecordSet } from '../record-sets/define.js';
import { searchConditions } from '../record-sets/filters.js';
import type { ContribucionesRole, ContribucionesUse } from '../record-sets/roles.js';
import type { Condition } from '../store/sql.js';
import type { Row, Store } from '../store/store.js';

export interface Source {
  readonly rs: RecordSet;
  readonly use: ContribucionesUse;
  readonly fractionField: string;
  readonly dottedField: string | undefined;
  readonly nicoField: string;
}

/** Rows of one fraction, per source. */
export type FractionRecords = ReadonlyMap<Source, readonly Row[]>;

const FRACTIONS_PER_QUERY = 100;
/** Far more than the records of a hundred fractions in any record set: nothing is cut off. */
const ROWS_PER_QUERY = 1_000_000;

export function contribucionesSources(recordSets: readonly RecordSet[]): Source[] {
  return recordSets.flatMap((rs) => {
    const filter = rs.filters.find((f) => f.rule === 'fraction' && f.param === 'fraccion');
    if (!rs.contribuciones || filter?.rule !== 'fraction') return [];
    return [{ rs, use: rs.contribuciones, fractionField: filter.field, dottedField: filter.dottedField, nicoField: filter.nicoField }];
  });
}

export function rolesOf<K extends ContribucionesRole['kind']>(source: Source, kind: K): Extract<ContribucionesRole, { kind: K }>[] {
  return source.use.roles.filter((r): r is Extract<ContribucionesRole, { kind: K }> => r.kind === kind);
}

/** The keys under which records name a country: the country itself and every group it belongs to. */
export function countryKeys(country: string, groups: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  return [country, ...[...groups].filter(([, members]) => members.has(country)).map(([group]) => group)];
}

function fractionOf(source: Source, row: Row): string {
  const value = row[source.fractionField] ?? (source.dottedField ? row[source.dottedField] : null);
  return String(value ?? '')
    .replace(/\D/g, '')
    .slice(0, 8);
}

async function readSource(store: Store, source: Source, fractions: readonly string[], countries: readonly string[]): Promise<Row[]> {
  const { rs } = source;
  const rows: Row[] = [];
  for (let i = 0; i < fractions.length; i += FRACTIONS_PER_QUERY) {
    // Each query in a turn of the event loop of its own: SQLite answers synchronously, and the
    // queries of a large request together would hold the loop for tens of milliseconds.
    await setImmediate();
    const chunk = fractions.slice(i, i + FRACTIONS_PER_QUERY);
    const conditions: Condition[] = [{ kind: 'or', any: chunk.flatMap((f) => searchConditions(rs, { fraccion: f })) }];
    if (rs.country) {
      const field = rs.country;
      conditions.push({ kind: 'or', any: [{ kind: 'null', field }, ...countries.map((value) => ({ kind: 'ci' as const, field, value }))] });
    }
    rows.push(...(await store.search(rs, { conditions, skip: 0, limit: ROWS_PER_QUERY })));
  }
  return rows;
}

/** The records of every source for the given fractions and origin, per fraction. */
export async function readRecords(
  store: Store,
  sources: readonly Source[],
  fractions: readonly string[],
  countries: readonly string[],
): Promise<Map<string, Map<Source, Row[]>>> {
  const bySource = await Promise.all(sources.map((s) => readSource(store, s, fractions, countries)));
  const result = new Map<string, Map<Source, Row[]>>(fractions.map((f) => [f, new Map(sources.map((s) => [s, []]))]));
  sources.forEach((source, i) => {
    for (const row of bySource[i] ?? []) result.get(fractionOf(source, row))?.get(source)?.push(row);
  });
  return result;
}

export interface Circumstances {
  readonly nico: string;
  /** Country keys the origin is known by (itself and its groups). */
  readonly countries: readonly string[];
  /** `YYYYMMDD` */
  readonly fecha8: string;
}

const blank = (v: string | number | null | undefined): boolean => v === null || v === undefined || String(v).trim() === '';

/** Whether a record applies: its NICO or none, the origin or any country, in force, not for export only. */
export function applies(source: Source, row: Row, at: Circumstances): boolean {
  const { use } = source;
  const nico = row[source.nicoField];
  if (!blank(nico) && String(nico) !== at.nico) return false;
  if (source.rs.country) {
    const country = row[source.rs.country];
    if (!blank(country) && !at.countries.includes(String(country).trim().toUpperCase())) return false;
  }
  if (use.validity) {
    const [from, until] = use.validity.map((f) => row[f]);
    if (!blank(from) && String(from) > at.fecha8) return false;
    if (!blank(until) && String(until) < at.fecha8) return false;
  }
  if (use.direction) {
    const value = row[use.direction.field];
    if (!blank(value) && !use.direction.importValues.includes(String(value).trim().toUpperCase())) return false;
  }
  return true;
}

export interface SourceRef {
  readonly conjunto: string;
  readonly id: string | number | null;
  /** The other columns of a composite identifier (`tlcs`: SYSID and FRACCION), lower-case as the lookup's path. */
  readonly [column: string]: string | number | null;
}

export function sourceRef(source: Source, row: Row): SourceRef {
  const [first, ...rest] = source.rs.key;
  const ref: Record<string, string | number | null> = { conjunto: source.rs.path, id: first ? (row[first] ?? null) : null };
  for (const k of rest) ref[k.toLowerCase()] = row[k] ?? null;
  return ref as SourceRef;
}

/** Records of the demo dataset say in their text whether they are historic or made up. */
const MARK = /\b(HISTÓRICO|DEMO):/u;

export function isMarked(row: Row): boolean {
  return Object.values(row).some((v) => typeof v === 'string' && MARK.test(v));
}

export const text = (row: Row, field: string): string | null => (blank(row[field]) ? null : String(row[field]).trim());
