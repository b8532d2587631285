/** Reading the shipped sources, the marks of non-real records, and the shared small helpers. */
import { dotted } from '../../fraccion.js';
import type { Igi, Rec, Row } from './common.js';
import { col, readCsv } from './common.js';
import type { SpanishNomenclature } from './spanish.js';
import { readSpanishNomenclature } from './spanish.js';

export type { Igi, Rec, Row } from './common.js';
export { charCount, col, readCsv } from './common.js';

export interface DemoRecord {
  readonly recordSet: string;
  readonly record: Record<string, unknown>;
}


/** The marks non-real records carry in their notes field; tests and docs rely on these words. */
export const DEMO_MARK = 'DEMO: registro generado, no es dato oficial.';
export const HIST_IGI =
  'HISTÓRICO: IGI/IGE de la TIGIE 2012 (nomenclatura anterior de 8 dígitos, SIICEX-CAAAREM, ca. 2014), ' +
  'asignados por coincidir la fracción de 8 dígitos; no son tasas vigentes.';
export const HIST_FICHA =
  'HISTÓRICO: ficha SIICEX-CAAAREM de la TIGIE 2012 (ca. 2017), asignada por coincidir la fracción de 8 dígitos; ' +
  'no es dato vigente.';

// ---------------------------------------------------------------------------------------------
// Reading the sources


const readFor = new WeakMap<Sources, Map<string, Row[]>>();

/** readCsv, read once for all the versions built from the same sources (the preferences are read for each). */
export function sourceRows(src: Sources, dir: string, file: string, columns: readonly string[]): Row[] {
  let files = readFor.get(src);
  if (!files) readFor.set(src, (files = new Map<string, Row[]>()));
  let rows = files.get(file);
  if (!rows) files.set(file, (rows = readCsv(dir, file, columns)));
  return rows;
}



/** '2022-12-12' → '20221212'; anything else → null. */
export function isoToDate8(iso: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m ? `${m[1]}${m[2]}${m[3]}` : null;
}

export const dotted8 = (f: string): string => dotted(f.slice(0, 8));

/** Units of Anexo 22 apéndice 7 (the SAT catalog writes the same keys with a leading zero). */
export const UNIT_ABBREVIATIONS: Readonly<Record<string, string>> = {
  '1': 'KG',
  '2': 'G',
  '3': 'M',
  '4': 'M2',
  '5': 'M3',
  '6': 'PZA',
  '7': 'CBZA',
  '8': 'L',
  '9': 'PAR',
  '10': 'KW',
  '11': 'MLL',
  '12': 'JGO',
  '13': 'KWH',
  '14': 'T',
  '15': 'BARR',
  '16': 'GN',
  '17': 'DEC',
  '18': 'CIEN',
  '19': 'DOC',
  '20': 'CAJA',
  '21': 'BOT',
  '22': 'CT',
};

export interface LigieCode {
  readonly code10: string;
  readonly fraction: string;
  readonly nico: string;
  readonly hs6: string;
  readonly chapter: string;
  readonly text: string;
  /** Anexo 22 apéndice 7 key, without the SAT catalog's leading zero. */
  readonly unit: string;
  readonly unitAbbr: string;
  readonly validFrom: string;
  readonly validUntil: string;
}


export interface Sources {
  readonly ligie: readonly LigieCode[];
  readonly ligieFractions: ReadonlySet<string>;
  /** Code (8 or 10 digits) → its entries in the SAT code history. */
  readonly history: ReadonlyMap<string, readonly Row[]>;
  readonly historyRows: readonly Row[];
  readonly hs: ReadonlyMap<string, Row>;
  readonly sections: ReadonlyMap<string, string>;
  readonly igi: ReadonlyMap<string, Igi>;
  readonly fichas: readonly Row[];
  readonly spanish: SpanishNomenclature;
  readonly countries: ReadonlySet<string>;
  readonly currencies: ReadonlySet<string>;
  readonly incoterms: readonly string[];
  readonly unitNames: ReadonlyMap<string, string>;
  readonly permits: ReadonlySet<string>;
}

export function loadSources(dir: string): Sources {
  const ligieRows = readCsv(dir, 'ligie2022-sat/ligie2022_nico_derivado.csv', [
    'nico10',
    'fraccion8',
    'nico2',
    'hs6',
    'capitulo',
    'descripcion_nico',
    'umt_clave',
    'vigencia_desde',
    'vigencia_hasta',
  ]);
  const ligie = ligieRows.map((r): LigieCode => {
    const unit = String(Number(col(r, 'umt_clave')));
    const unitAbbr = UNIT_ABBREVIATIONS[unit];
    if (!unitAbbr) throw new Error(`demo: unknown unit key ${col(r, 'umt_clave')} for ${col(r, 'nico10')}`);
    return {
      code10: col(r, 'nico10'),
      fraction: col(r, 'fraccion8'),
      nico: col(r, 'nico2'),
      hs6: col(r, 'hs6'),
      chapter: col(r, 'capitulo'),
      text: col(r, 'descripcion_nico'),
      unit,
      unitAbbr,
      validFrom: col(r, 'vigencia_desde'),
      validUntil: col(r, 'vigencia_hasta'),
    };
  });
  ligie.sort((a, b) => compare(a.code10, b.code10));

  const historyRows = readCsv(dir, 'ligie2022-sat/cce_fracciones_arancelarias.csv', [
    'fraccion',
    'texto',
    'vigencia_desde',
    'vigencia_hasta',
  ]);
  const history = new Map<string, Row[]>();
  for (const r of historyRows) pushTo(history, col(r, 'fraccion'), r);

  const hs = new Map<string, Row>();
  for (const r of readCsv(dir, 'hs2022/harmonized-system.csv', ['section', 'hscode', 'description', 'level'])) {
    hs.set(col(r, 'hscode'), r);
  }
  const sections = new Map<string, string>();
  for (const r of readCsv(dir, 'hs2022/sections.csv', ['section', 'name'])) sections.set(col(r, 'section'), col(r, 'name'));

  const igi = new Map<string, Igi>();
  for (const r of readCsv(dir, 'tigie2012-siicex/fracciones_igi_ige.csv', ['fraccion', 'igi', 'ige', 'estado'])) {
    // The crawl holds a few fractions twice; the first vigente line wins.
    if (col(r, 'estado') !== 'vigente' || igi.has(col(r, 'fraccion'))) continue;
    igi.set(col(r, 'fraccion'), { igi: col(r, 'igi'), ige: col(r, 'ige') });
  }

  const countries = new Set<string>();
  for (const r of readCsv(dir, 'anexo22/apendice4_paises.csv', ['Clave SAAI M3'])) countries.add(col(r, 'Clave SAAI M3'));
  for (const r of readCsv(dir, 'ligie2022-sat/cfdi_40_paises.csv', ['id'])) countries.add(col(r, 'id'));

  const unitNames = new Map<string, string>();
  for (const r of readCsv(dir, 'anexo22/apendice7_unidades_medida.csv', ['Clave', 'Descripción'])) {
    unitNames.set(col(r, 'Clave'), col(r, 'Descripción'));
  }

  const fichas = readCsv(dir, 'tigie2012-siicex/fichas_generales.csv', [
    'fraccion',
    'seccion_codigo',
    'seccion_descripcion',
    'capitulo_codigo',
    'capitulo_descripcion',
    'partida_codigo',
    'partida_descripcion',
    'subpartida_codigo',
    'subpartida_descripcion',
    'restr_import',
    'restr_export',
    'anexos',
    'cupos_import',
    'cupos_export',
  ]);

  return {
    ligie,
    ligieFractions: new Set(ligie.map((c) => c.fraction)),
    history,
    historyRows,
    hs,
    sections,
    igi,
    fichas,
    spanish: readSpanishNomenclature(dir, fichas),
    countries,
    currencies: new Set(readCsv(dir, 'ligie2022-sat/cfdi_40_monedas.csv', ['id']).map((r) => col(r, 'id'))),
    incoterms: readCsv(dir, 'ligie2022-sat/cce_20_incoterms.csv', ['id']).map((r) => col(r, 'id')),
    unitNames,
    permits: new Set(readCsv(dir, 'anexo22/apendice9_regulaciones_rrna.csv', ['clave']).map((r) => col(r, 'clave'))),
  };
}

export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every key the dataset uses must be a real one: a typo here would ship a wrong key. */
export function checkedCountry(src: Sources, key: string): string {
  if (!src.countries.has(key)) throw new Error(`demo: ${key} is not a country key of Anexo 22 / SAT`);
  return key;
}

export function checkedPermit(src: Sources, key: string): string {
  if (!src.permits.has(key)) throw new Error(`demo: ${key} is not a permit key of Anexo 22 apéndice 9`);
  return key;
}

// ---------------------------------------------------------------------------------------------
// Identifiers

/** Sorts by fraction (then NICO, stable otherwise) and numbers from 1. */
export function numbered<T extends Rec>(records: T[], idField: string, fractionField = 'FRACCION', nicoField = 'NICO'): T[] {
  const key = (r: Rec, f: string): string => {
    const value = r[f];
    return typeof value === 'string' ? value : '';
  };
  const sorted = records
    .map((r, i) => ({ r, i }))
    .sort(
      (a, b) =>
        compare(key(a.r, fractionField), key(b.r, fractionField)) ||
        compare(key(a.r, nicoField), key(b.r, nicoField)) ||
        a.i - b.i,
    );
  return sorted.map(({ r }, i) => ({ ...r, [idField]: i + 1 }));
}
