/**
 * The project's own rate tables, shipped in `data/contribuciones/` (each row cites its publication):
 * the DTA rate, its yearly fixed minimum and the agreements that exempt originating goods
 * (`dta.csv`), and the membership of country groups such as the European Union (`grupos-paises.csv`).
 * Read once at start-up; a malformed table stops the start rather than computing with it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { projectRoot } from '../config-values.js';
import type { Dec } from './money.js';
import { Dec as Decimal } from './money.js';

export const TABLES_DIR = join(projectRoot, 'data', 'contribuciones');
export const DTA_TABLE = 'dta';

export interface DtaRow {
  /** Line of the CSV file (the header is line 1), cited in `fuente`. */
  readonly fila: number;
  readonly concepto: 'tasa' | 'minimo' | 'exencion';
  readonly desde: string | null;
  readonly hasta: string | null;
  readonly tratamiento: string | null;
  readonly pais: string | null;
  readonly valor: Dec | null;
  readonly fundamento: string;
  readonly publicacion: string;
}

/** A country (or a group of countries) with a trade agreement with Mexico that grants preferences (`acuerdos.csv`). */
export interface AcuerdoRow {
  readonly fila: number;
  readonly tratamiento: 'tlc' | 'aladi';
  readonly acuerdo: string;
  /** A country key of Anexo 22 apéndice 4, or a group key of `grupos-paises.csv` (EMU). */
  readonly pais: string;
  readonly desde: string | null;
  readonly hasta: string | null;
  readonly publicacion: string;
}

export interface Tables {
  readonly dta: readonly DtaRow[];
  /** Who has an agreement with Mexico: absent when not loaded, so that no absence is noted. */
  readonly acuerdos?: readonly AcuerdoRow[];
  /** Group key (as records use it, e.g. `EMU`) → member country keys. */
  readonly groups: ReadonlyMap<string, ReadonlySet<string>>;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function rows(file: string): Record<string, string>[] {
  return parse<Record<string, string>>(readFileSync(join(TABLES_DIR, file), 'utf8'), { columns: true, skip_empty_lines: true, trim: true });
}

function dtaRow(r: Record<string, string>, i: number): DtaRow {
  const fila = i + 2;
  const bad = (why: string): never => {
    throw new Error(`data/contribuciones/dta.csv line ${fila}: ${why}`);
  };
  const concepto = r['concepto'];
  if (concepto !== 'tasa' && concepto !== 'minimo' && concepto !== 'exencion') return bad(`unknown concepto ${concepto}`);
  const date = (name: string): string | null => {
    const v = r[name] ?? '';
    if (v === '') return null;
    return DATE.test(v) ? v : bad(`${name} is not YYYY-MM-DD`);
  };
  const valor = r['valor'] ? new Decimal(r['valor']) : null;
  if (concepto !== 'exencion' && valor === null) bad('valor is required');
  if (!r['fundamento'] || !r['publicacion']) bad('fundamento and publicacion are required');
  return {
    fila,
    concepto,
    desde: date('vigente_desde'),
    hasta: date('vigente_hasta'),
    tratamiento: r['tratamiento'] || null,
    pais: r['pais'] ? r['pais'].toUpperCase() : null,
    valor,
    fundamento: r['fundamento'] ?? '',
    publicacion: r['publicacion'] ?? '',
  };
}

function acuerdoRow(r: Record<string, string>, i: number): AcuerdoRow {
  const fila = i + 2;
  const bad = (why: string): never => {
    throw new Error(`data/contribuciones/acuerdos.csv line ${fila}: ${why}`);
  };
  const tratamiento = r['tratamiento'];
  if (tratamiento !== 'tlc' && tratamiento !== 'aladi') return bad(`unknown tratamiento ${tratamiento}`);
  const date = (name: string): string | null => {
    const v = r[name] ?? '';
    if (v === '') return null;
    return DATE.test(v) ? v : bad(`${name} is not YYYY-MM-DD`);
  };
  const pais = (r['pais'] ?? '').toUpperCase();
  if (!/^[A-Z]{3}$/.test(pais)) bad(`pais ${pais} is not a key of 3 letters`);
  if (!r['acuerdo'] || !r['publicacion']) bad('acuerdo and publicacion are required');
  return {
    fila,
    tratamiento,
    acuerdo: r['acuerdo'] ?? '',
    pais,
    desde: date('vigente_desde'),
    hasta: date('vigente_hasta'),
    publicacion: r['publicacion'] ?? '',
  };
}

/** The agreements under `tratamiento` in force on `fecha` for any of `countries` (a country and its groups). */
export function agreementsOf(tables: Tables, tratamiento: string, countries: readonly string[], fecha: string): string[] {
  const rows = (tables.acuerdos ?? []).filter(
    (a) => a.tratamiento === tratamiento && countries.includes(a.pais) && (a.desde === null || a.desde <= fecha) && (a.hasta === null || fecha <= a.hasta),
  );
  return [...new Set(rows.map((a) => a.acuerdo))];
}

let loaded: Tables | undefined;

/**
 * The tables of data/contribuciones/, read once per process: they are files of the project, never
 * changed while it runs, and every app (the tests build hundreds) and the batches' answerer share them.
 */
export function loadTables(): Tables {
  loaded ??= readTables();
  return loaded;
}

function readTables(): Tables {
  const dta = rows('dta.csv').map(dtaRow);
  const acuerdos = rows('acuerdos.csv').map(acuerdoRow);
  const groups = new Map<string, Set<string>>();
  for (const r of rows('grupos-paises.csv')) {
    const group = (r['grupo'] ?? '').toUpperCase();
    const member = (r['pais'] ?? '').toUpperCase();
    if (!group || !member) throw new Error('data/contribuciones/grupos-paises.csv: grupo and pais are required');
    groups.set(group, (groups.get(group) ?? new Set()).add(member));
  }
  return { dta, groups, acuerdos };
}

const inForce = (row: DtaRow, fecha: string): boolean => (row.desde === null || row.desde <= fecha) && (row.hasta === null || fecha <= row.hasta);

/** The DTA rate (al millar) in force on `fecha`. */
export function dtaRate(tables: Tables, fecha: string): DtaRow | undefined {
  return tables.dta.find((r) => r.concepto === 'tasa' && inForce(r, fecha));
}

/**
 * The fixed minimum in force on `fecha`; when the table has none for that date, the latest earlier one
 * (or the earliest) with `exact: false`, so that the answer can say the figure is not the year's own.
 */
export function dtaMinimum(tables: Tables, fecha: string): { row: DtaRow; exact: boolean } | undefined {
  const minima = tables.dta.filter((r) => r.concepto === 'minimo');
  const own = minima.find((r) => inForce(r, fecha));
  if (own) return { row: own, exact: true };
  const earlier = minima.filter((r) => (r.desde ?? '') <= fecha).sort((a, b) => (a.desde ?? '').localeCompare(b.desde ?? ''));
  const fallback = earlier[earlier.length - 1] ?? minima[0];
  return fallback && { row: fallback, exact: false };
}

/** The row exempting originating goods of `pais` under `tratamiento` from DTA on `fecha`, if any. */
export function dtaExemption(tables: Tables, tratamiento: string, pais: string, fecha: string): DtaRow | undefined {
  return tables.dta.find((r) => r.concepto === 'exencion' && r.tratamiento === tratamiento && r.pais === pais && inForce(r, fecha));
}
