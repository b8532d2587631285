/**
 * The demo dataset: every record set filled from the public tariff data shipped in `data/sources`.
 *
 * Four kinds of record, and each says which it is (data/sources/README.md and docs/demo-dataset.md
 * explain the sources):
 * - real: the LIGIE 2022 codes (SAT catalog), the HS 2022 nomenclature, the US HTS 2024;
 * - historic: duties, preferences and non-tariff rules of the TIGIE 2012 as published by SIICEX,
 *   attached only where the same 8-digit fraction still exists in the LIGIE 2022, marked HISTÓRICO;
 * - derived: the correlation of replaced fractions, inferred from the SAT code history;
 * - demo: made up by a seeded generator over real fractions and real keys, marked DEMO.
 *
 * The output depends on the source files only: no clock, no unseeded randomness, so two runs give the
 * same records with the same identifiers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';

export interface DemoRecord {
  readonly recordSet: string;
  readonly record: Record<string, unknown>;
}

type Row = Readonly<Record<string, string | undefined>>;
type Rec = Record<string, unknown>;

/** The marks non-real records carry in their notes field; tests and docs rely on these words. */
export const DEMO_MARK = 'DEMO: registro generado, no es dato oficial.';
const HIST_IGI =
  'HISTÓRICO: IGI/IGE de la TIGIE 2012 (nomenclatura anterior de 8 dígitos, SIICEX-CAAAREM, ca. 2014), ' +
  'asignados por coincidir la fracción de 8 dígitos; no son tasas vigentes.';
const HIST_FICHA =
  'HISTÓRICO: ficha SIICEX-CAAAREM de la TIGIE 2012 (ca. 2017), asignada por coincidir la fracción de 8 dígitos; ' +
  'no es dato vigente.';

// ---------------------------------------------------------------------------------------------
// Reading the sources

function readCsv(dir: string, file: string, columns: readonly string[]): Row[] {
  const text = readFileSync(join(dir, file), 'utf8');
  const rows = parse<Record<string, string>>(text, { columns: true, bom: true, skip_empty_lines: true });
  const first = rows[0];
  if (!first) throw new Error(`demo source ${file} is empty`);
  // A renamed column would otherwise turn a whole field silently into nulls.
  for (const c of columns) if (!(c in first)) throw new Error(`demo source ${file} has no column ${c}`);
  return rows;
}

const col = (row: Row, name: string): string => (row[name] ?? '').trim();

const charCount = (s: string): number => [...s].length;

/** '2022-12-12' → '20221212'; anything else → null. */
function isoToDate8(iso: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m ? `${m[1]}${m[2]}${m[3]}` : null;
}

const dotted8 = (f: string): string => `${f.slice(0, 4)}.${f.slice(4, 6)}.${f.slice(6, 8)}`;

/** Units of Anexo 22 apéndice 7 (the SAT catalog writes the same keys with a leading zero). */
const UNIT_ABBREVIATIONS: Readonly<Record<string, string>> = {
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

interface LigieCode {
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

interface Igi {
  readonly igi: string;
  readonly ige: string;
}

interface Sources {
  readonly ligie: readonly LigieCode[];
  readonly ligieFractions: ReadonlySet<string>;
  /** Code (8 or 10 digits) → its entries in the SAT code history. */
  readonly history: ReadonlyMap<string, readonly Row[]>;
  readonly historyRows: readonly Row[];
  readonly hs: ReadonlyMap<string, Row>;
  readonly sections: ReadonlyMap<string, string>;
  readonly igi: ReadonlyMap<string, Igi>;
  readonly fichas: readonly Row[];
  readonly countries: ReadonlySet<string>;
  readonly currencies: ReadonlySet<string>;
  readonly incoterms: readonly string[];
  readonly unitNames: ReadonlyMap<string, string>;
  readonly permits: ReadonlySet<string>;
}

function loadSources(dir: string): Sources {
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

  return {
    ligie,
    ligieFractions: new Set(ligie.map((c) => c.fraction)),
    history,
    historyRows,
    hs,
    sections,
    igi,
    fichas: readCsv(dir, 'tigie2012-siicex/fichas_generales.csv', [
      'fraccion',
      'seccion_codigo',
      'seccion_descripcion',
      'capitulo_codigo',
      'capitulo_descripcion',
      'restr_import',
      'restr_export',
      'anexos',
      'cupos_import',
      'cupos_export',
    ]),
    countries,
    currencies: new Set(readCsv(dir, 'ligie2022-sat/cfdi_40_monedas.csv', ['id']).map((r) => col(r, 'id'))),
    incoterms: readCsv(dir, 'ligie2022-sat/cce_20_incoterms.csv', ['id']).map((r) => col(r, 'id')),
    unitNames,
    permits: new Set(readCsv(dir, 'anexo22/apendice9_regulaciones_rrna.csv', ['clave']).map((r) => col(r, 'clave'))),
  };
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every key the dataset uses must be a real one: a typo here would ship a wrong key. */
function checkedCountry(src: Sources, key: string): string {
  if (!src.countries.has(key)) throw new Error(`demo: ${key} is not a country key of Anexo 22 / SAT`);
  return key;
}

function checkedPermit(src: Sources, key: string): string {
  if (!src.permits.has(key)) throw new Error(`demo: ${key} is not a permit key of Anexo 22 apéndice 9`);
  return key;
}

// ---------------------------------------------------------------------------------------------
// Identifiers

/** Sorts by fraction (then NICO, stable otherwise) and numbers from 1. */
function numbered(records: Rec[], idField: string, fractionField = 'FRACCION', nicoField = 'NICO'): Rec[] {
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

// ---------------------------------------------------------------------------------------------
// Rates as written

interface ParsedRate {
  readonly num: string | null;
  readonly type: number | null;
  readonly mixed: boolean;
  readonly mixedSpecific: string | null;
  readonly specific: boolean;
}

/**
 * Reads a TIGIE 2012 duty as SIICEX wrote it: `10%*`, `Ex.`, `AMX (20%+0.36)*`, `AE (0.36)*`.
 * Asterisks point to footnotes of the source and do not change the rate. Types follow Anexo 22
 * apéndice 18 (1 porcentual, 2 específico).
 */
function parseDuty(written: string): ParsedRate {
  const s = written.replace(/\*/g, '').replace(/\s+/g, ' ').trim();
  const none: ParsedRate = { num: null, type: null, mixed: false, mixedSpecific: null, specific: false };
  if (/^ex\.?$/i.test(s)) return { ...none, num: '0', type: 1 };
  const plain = /^(\d+(?:\.\d+)?) ?%?\.?$/.exec(s);
  if (plain?.[1]) return { ...none, num: plain[1], type: 1 };
  const mixed = /^AMX ?\((\d+(?:\.\d+)?)%\+([\d.]+)\)$/.exec(s);
  if (mixed?.[1]) {
    const specificPart = mixed[2] ?? '';
    return { ...none, num: mixed[1], type: 1, mixed: true, mixedSpecific: /^\d*\.\d+$/.test(specificPart) ? specificPart : null };
  }
  if (/^AE\b/.test(s)) return { ...none, type: 2, specific: true };
  return none;
}

/** A preference written as a plain number or `Ex.`: its numeric value; anything with words: null. */
function plainRate(written: string): string | null {
  const s = written.trim();
  if (/^ex\.?$/i.test(s)) return '0';
  const m = /^(\d+(?:\.\d+)?) ?%?$/.exec(s);
  return m?.[1] ?? null;
}

/** The rate without a leading or trailing "A partir del …" validity clause. */
function withoutValidityClause(text: string): string {
  return text
    .replace(/^A partir del \S+\s*/i, '')
    .replace(/\s*\(?\s*A partir del .*$/i, '')
    .trim();
}

/**
 * A rate text that fits a field of `max` characters. Texts that fit are kept as written; longer ones
 * get a short form and the caller keeps the full text in the record's notes, so nothing is lost.
 */
function fitRate(text: string, max: number): string | null {
  if (text === '') return null;
  if (charCount(text) <= max) return text;
  const core = withoutValidityClause(text);
  // Only a validity date and no rate ("A partir del 7/junio/2010"): nothing to show as a rate.
  if (core === '') return null;
  if (charCount(core) <= max) return core;
  if (/^ex\b/i.test(core)) return 'Ex.';
  const number = /^(\d+(?:\.\d+)?%?)(?:\s|$)/.exec(core);
  if (number?.[1]) return number[1];
  if (/eliminada/i.test(core)) return 'Eliminada';
  if (/exceptuada/i.test(core)) return 'Exceptuada';
  return 'Ver observaciones';
}

// ---------------------------------------------------------------------------------------------
// Dates in Spanish texts

const ROMAN_MONTHS: Readonly<Record<string, number>> = {
  I: 1, II: 2, III: 3, IV: 4, V: 5, VI: 6, VII: 7, VIII: 8, IX: 9, X: 10, XI: 11, XII: 12,
};
const SPANISH_MONTHS: readonly string[] = [
  'enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre',
];

function date8(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  return `${year}${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}`;
}

/** The first "DOF 29/XII/2004" in a text. */
function firstDofDate(text: string): string | null {
  const m = /DOF (\d{1,2})\/([IVX]+)\/(\d{4})/.exec(text);
  if (!m?.[1] || !m[2] || !m[3]) return null;
  const month = ROMAN_MONTHS[m[2]];
  return month === undefined ? null : date8(Number(m[3]), month, Number(m[1]));
}

function spanishMonth(name: string): number {
  return SPANISH_MONTHS.indexOf(name.toLowerCase()) + 1;
}

// ---------------------------------------------------------------------------------------------
// A seeded generator for the demo records

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

class Rng {
  private readonly next: () => number;
  constructor(name: string) {
    // One stream per record set, so changing one generator leaves the others' records unchanged.
    this.next = mulberry32(fnv1a(name));
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(0, items.length - 1)];
    if (item === undefined) throw new Error('demo: pick from an empty list');
    return item;
  }
  /** `n` distinct items, in the order of `items`. */
  sample<T>(items: readonly T[], n: number): T[] {
    const indexes = items.map((_, i) => i);
    for (let i = indexes.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [indexes[i], indexes[j]] = [indexes[j] as number, indexes[i] as number];
    }
    return indexes
      .slice(0, Math.min(n, items.length))
      .sort((a, b) => a - b)
      .map((i) => items[i] as T);
  }
  date(fromYear: number, toYear: number): string {
    return `${this.int(fromYear, toYear)}${String(this.int(1, 12)).padStart(2, '0')}${String(this.int(1, 28)).padStart(2, '0')}`;
  }
  /** A decimal between min and max (in units of 10^-scale), written with `scale` digits. */
  decimal(min: number, max: number, scale: number): string {
    const factor = 10 ** scale;
    const units = this.int(Math.round(min * factor), Math.round(max * factor));
    const whole = Math.floor(units / factor);
    const frac = String(units % factor).padStart(scale, '0');
    return scale > 0 ? `${whole}.${frac}` : String(whole);
  }
}

function addYears(date: string, years: number): string {
  return `${Number(date.slice(0, 4)) + years}${date.slice(4)}`;
}

// ---------------------------------------------------------------------------------------------
// fracciones and informacion-general: one record per LIGIE 2022 code

/** The code's own history in the SAT catalog (10 digits) and its 8-digit predecessor with the same number. */
function codeHistory(src: Sources, c: LigieCode): string | null {
  const entries = [...(src.history.get(c.fraction) ?? []), ...(src.history.get(c.code10) ?? [])];
  if (entries.length === 0) return null;
  const parts = entries.map((r) => {
    const until = col(r, 'vigencia_hasta');
    return `${col(r, 'fraccion')} vigente desde ${col(r, 'vigencia_desde')}${until ? ` hasta ${until}` : ''}`;
  });
  return `Catálogo SAT de fracciones arancelarias: ${parts.join('; ')}.`;
}

/** The LIGIE 2022 entry into force of the code (SAT history), else the catalog's validity start. */
function validityStart(src: Sources, c: LigieCode): string | null {
  const current = (src.history.get(c.code10) ?? []).find((r) => col(r, 'vigencia_hasta') === '');
  return isoToDate8(current ? col(current, 'vigencia_desde') : c.validFrom);
}

function fracciones(src: Sources): Rec[] {
  return numbered(
    src.ligie.map((c) => {
      const old = src.igi.get(c.fraction);
      const imp = old ? parseDuty(old.igi) : null;
      const exp = old ? parseDuty(old.ige) : null;
      const notes: string[] = [];
      if (old) notes.push(HIST_IGI);
      if (c.validUntil) notes.push(`Código con vigencia hasta ${c.validUntil} en el catálogo SAT.`);
      return {
        FRACCION: c.fraction,
        FRACCIONPUNTO: dotted8(c.fraction),
        DESCRIPCION: c.text,
        UMCLAVE: c.unit,
        UMABREVIACION: c.unitAbbr,
        ADVIMPOTXT: old?.igi || null,
        ADVIMPONUM: imp?.num ?? null,
        TIPOTASAADVIMPO: imp?.type ?? null,
        ADVEXPOTXT: old?.ige || null,
        ADVEXPONUM: exp?.num ?? null,
        TIPOTASAADVEXPO: exp?.type ?? null,
        ARANCELMIXTO: imp?.mixed ? 'S' : null,
        TASAMIXTA: imp?.mixedSpecific ?? null,
        ARANCELESPECIFICO: imp?.specific ? 'S' : null,
        DOF: validityStart(src, c),
        NOTAS: notes.length > 0 ? notes.join(' ') : null,
        HISTORICO: codeHistory(src, c),
        NIVEL: 5,
        NICO: c.nico,
      };
    }),
    'SYSID',
  );
}

function isRoman(s: string): boolean {
  return /^[IVXLC]+$/.test(s);
}

function informacionGeneral(src: Sources): Rec[] {
  // LIGIE chapter 98 (special operations) is not in the HS: its section and chapter names come from
  // the SIICEX fichas, in Spanish.
  const fichaChapters = new Map<string, Row>();
  for (const f of src.fichas) if (!fichaChapters.has(col(f, 'capitulo_codigo'))) fichaChapters.set(col(f, 'capitulo_codigo'), f);
  const nicosPerFraction = new Map<string, number>();
  for (const c of src.ligie) nicosPerFraction.set(c.fraction, (nicosPerFraction.get(c.fraction) ?? 0) + 1);

  return numbered(
    src.ligie.map((c) => {
      const chapter = src.hs.get(c.chapter);
      const heading = src.hs.get(c.hs6.slice(0, 4));
      const subheading = src.hs.get(c.hs6);
      const hsSection = chapter ? col(chapter, 'section') : '';
      const ficha = fichaChapters.get(c.chapter);
      const section = isRoman(hsSection) ? hsSection : ficha && !chapter ? col(ficha, 'seccion_codigo') : null;
      const sectionText = isRoman(hsSection)
        ? (src.sections.get(hsSection) ?? null)
        : ficha && !chapter
          ? col(ficha, 'seccion_descripcion')
          : null;
      const old = src.igi.get(c.fraction);
      return {
        FRACCION: c.fraction,
        SECCION: section,
        DESCRIPCIONSECCION: sectionText,
        CAPITULO: c.chapter,
        DESCRIPCIONCAPITULO: chapter ? col(chapter, 'description') : ficha ? col(ficha, 'capitulo_descripcion') : null,
        PARTIDA: c.hs6.slice(0, 4),
        DESCRIPCIONPARTIDA: heading ? col(heading, 'description') : null,
        SUBPARTIDA: c.hs6,
        DESCRIPCIONSUBPARTIDA: subheading ? col(subheading, 'description') : null,
        // The catalog gives the NICO's text; it is the fraction's own text only when the fraction has one NICO.
        DESCRIPCION: nicosPerFraction.get(c.fraction) === 1 ? c.text : null,
        DESCRIPCIONNICO: c.text,
        UMCLAVE: c.unit,
        UMABREVIACION: c.unitAbbr,
        ADVIMPOTXT: old?.igi || null,
        ADVEXPOTXT: old?.ige || null,
        DOF: validityStart(src, c),
        NOTAS: old ? HIST_IGI : null,
        NICO: c.nico,
      };
    }),
    'SYSID',
  );
}

// ---------------------------------------------------------------------------------------------
// fracciones-usa: the HTS 2024 basic edition, line by line

/** The HTS CSV writes the unit as a JSON array (`["doz.","kg"]`); shown here as `doz., kg`. */
function htsUnit(raw: string): string | null {
  if (raw === '') return null;
  let units: unknown;
  try {
    units = JSON.parse(raw);
  } catch {
    return raw;
  }
  if (!Array.isArray(units)) return raw;
  const parts = units.map((u) => (typeof u === 'string' ? u.trim() : '')).filter((u) => u !== '');
  return parts.length > 0 ? parts.join(', ') : null;
}

const HTS_RATE_MAX = 250;

function cutAt(text: string, max: number): string {
  return [...text].slice(0, max - 1).join('') + '…';
}

function fraccionesUsa(dir: string): Rec[] {
  const rows = readCsv(dir, 'us-hts-2024/hts_2024_basic_edition_csv.csv', [
    'HTS Number',
    'Indent',
    'Description',
    'Unit of Quantity',
    'General Rate of Duty',
    'Special Rate of Duty',
    'Column 2 Rate of Duty',
    'Additional Duties',
  ]);
  return rows.map((r, i) => {
    const number = col(r, 'HTS Number');
    const digits = number.replace(/\D/g, '');
    // The printed schedule shows the statistical suffix apart from the 8-digit subheading.
    const shown = digits.length === 10 ? `${number.slice(0, 10)} ${number.slice(11)}` : number;
    const notes: string[] = [];
    const additional = col(r, 'Additional Duties');
    if (additional) notes.push(`Additional duties: ${additional}`);
    const rate = (name: string, label: string): string | null => {
      const value = col(r, name);
      if (value === '') return null;
      if (charCount(value) <= HTS_RATE_MAX) return value;
      notes.push(`${label} (full text): ${value}`);
      return cutAt(value, HTS_RATE_MAX);
    };
    const general = rate('General Rate of Duty', 'General rate of duty');
    const column2 = rate('Column 2 Rate of Duty', 'Column 2 rate of duty');
    return {
      CONSECUTIVO: i + 1,
      FRACCION_SIN_PUNTO: digits || null,
      FRACCION_CON_PUNTO: number || null,
      FRACCION_MOSTRAR: shown || null,
      NIVEL: Number(col(r, 'Indent')),
      DESCRIPCION: col(r, 'Description') || null,
      UNIDADCANTIDAD: htsUnit(col(r, 'Unit of Quantity')),
      TARIFA1: general,
      TLC: col(r, 'Special Rate of Duty') || null,
      TARIFA2: column2,
      NOTAS: notes.length > 0 ? notes.join('\n') : null,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// tlcs, aladi2, prosec: historic preferences of the TIGIE 2012

/** Partners as the SIICEX fichas name them → Anexo 22 apéndice 4 keys (EMU: Comunidad Europea). */
const PARTNERS: Readonly<Record<string, string>> = {
  'E.U.A': 'USA',
  Canadá: 'CAN',
  'Com. Europea': 'EMU',
  Israel: 'ISR',
  Uruguay: 'URY',
  Japón: 'JPN',
  Islandia: 'ISL',
  Noruega: 'NOR',
  Suiza: 'CHE',
  Liechtenstein: 'LIE',
  Bolivia: 'BOL',
  Panamá: 'PAN',
  'Costa Rica': 'CRI',
  'El Salvador': 'SLV',
  Guatemala: 'GTM',
  Honduras: 'HND',
  Nicaragua: 'NIC',
  Colombia: 'COL',
  Chile: 'CHL',
  Perú: 'PER',
  Paraguay: 'PRY',
  Ecuador: 'ECU',
  Argentina: 'ARG',
  Brasil: 'BRA',
  Cuba: 'CUB',
};

function partner(src: Sources, name: string): string {
  const key = PARTNERS[name.trim()];
  if (!key) throw new Error(`demo: no country key for partner "${name}"`);
  return checkedCountry(src, key);
}

function tlcs(src: Sources, dir: string): Rec[] {
  const rows = readCsv(dir, 'tigie2012-siicex/tlc_tasas.csv', ['fraccion', 'grupo', 'pais_tratado', 'tasa']);
  const order = new Map<string, number>();
  const records: Rec[] = [];
  for (const r of rows) {
    const fraction = col(r, 'fraccion');
    if (!src.ligieFractions.has(fraction)) continue;
    // ORDEN is the partner's place in the fraction's list, empty rates included, as the ficha shows it.
    const place = (order.get(fraction) ?? 0) + 1;
    order.set(fraction, place);
    const written = col(r, 'tasa');
    if (written === '') continue;
    const text = fitRate(written, 44);
    const num = plainRate(written);
    const group = col(r, 'grupo');
    const agreement = group === 'TLC' ? `TLC con ${col(r, 'pais_tratado')}` : group;
    const full = text === written ? '' : ` Texto completo de la tasa: ${written}`;
    records.push({
      FRACCION: fraction,
      PAIS: partner(src, col(r, 'pais_tratado')),
      ORDEN: place,
      TASATXT: text,
      TIPOTASA: num === null ? null : 1,
      TASA1NUM: num,
      NOTAS: `${HIST_FICHA} Tasa preferencial (${agreement}).${full}`,
      NICO: null,
    });
  }
  return numbered(records, 'SYSID');
}

/** "Paraguay 48 Ecuador 40 Cuba y Panamá 28": preference margins by partner. */
function marginsByPartner(text: string): Map<string, string> {
  const margins = new Map<string, string>();
  for (const m of text.matchAll(/((?:[A-ZÁÉÍÓÚ][a-záéíóú]+)(?: y [A-ZÁÉÍÓÚ][a-záéíóú]+)*) (\d+)(?=\s|$)/g)) {
    for (const name of (m[1] ?? '').split(' y ')) if (m[2]) margins.set(name, m[2]);
  }
  return margins;
}

/** `10` × (1 − 48 %) → `5.2%`: the rate left after a margin, from the historic general rate. */
function rateAfterMargin(generalRate: string | null, margin: string): string | null {
  if (generalRate === null) return null;
  const hundredths = Math.round(Number(generalRate) * 100) * (100 - Number(margin));
  const value = hundredths / 10000;
  return `${Number(value.toFixed(4))}%`;
}

function aladi2(src: Sources, dir: string): Rec[] {
  const rows = readCsv(dir, 'tigie2012-siicex/aladi_preferencias.csv', ['fraccion', 'acuerdo', 'preferencia_texto']);
  const records: Rec[] = [];
  for (const r of rows) {
    const fraction = col(r, 'fraccion');
    if (!src.ligieFractions.has(fraction)) continue;
    const written = col(r, 'acuerdo');
    const m = /^(.*?)\s*\((.*)\)\s*$/.exec(written);
    if (!m?.[1] || !m[2]) throw new Error(`demo: ALADI agreement without partners: ${written}`);
    // The agreement's name without its partner list (which becomes one record per partner).
    const agreement = m[1].replace(/^A cuerdo/, 'Acuerdo').replace(/No\.(?=\d)/, 'No. ');
    const partners = m[2].split(/,\s*|\s+y\s+/).filter((p) => p !== '');
    const preference = col(r, 'preferencia_texto');
    const margins = marginsByPartner(preference);
    const core = withoutValidityClause(preference);
    const general = src.igi.get(fraction);
    const generalRate = general ? parseDuty(general.igi).num : null;
    for (const p of partners) {
      const margin = margins.get(p);
      const num = margin ? null : plainRate(core);
      records.push({
        FRACCION: fraction,
        ACUERDO: agreement,
        PAIS: partner(src, p),
        TASATXT: margin ? `${margin}%` : fitRate(preference, 19),
        TASANUM: num,
        TASACALCULADA: margin ? rateAfterMargin(generalRate, margin) : null,
        // Anexo 22 apéndice 18: 1 porcentual, 5 tasa de descuento sobre ad valorem.
        TIPOTASA: margin ? 5 : num === null ? null : 1,
        NOTAS: margin
          ? `${HIST_FICHA} Margen de preferencia; la tasa calculada parte del IGI histórico de la TIGIE 2012.`
          : HIST_FICHA,
        OBSERVACIONES: `Acuerdo: ${written}. Preferencia según la ficha: ${preference || '(sin texto)'}`,
        NICO: null,
      });
    }
  }
  return numbered(records, 'SYSID');
}

function prosec(src: Sources, dir: string): Rec[] {
  const rows = readCsv(dir, 'tigie2012-siicex/prosec_tasas.csv', ['fraccion', 'sector', 'tasa']);
  const records: Rec[] = [];
  for (const r of rows) {
    const fraction = col(r, 'fraccion');
    if (!src.ligieFractions.has(fraction)) continue;
    const sector = col(r, 'sector');
    const roman = /^([IVXL]+)\s/.exec(sector)?.[1];
    if (!roman) throw new Error(`demo: PROSEC sector without a roman numeral: ${sector}`);
    const written = col(r, 'tasa');
    const num = plainRate(withoutValidityClause(written));
    records.push({
      FRACCION: fraction,
      ARTICULO: null,
      SECTOR: roman,
      TASATXT: fitRate(written, 19),
      TASANUM: num,
      TIPOTASA: num === null ? null : 1,
      OBSERVACION: `${HIST_FICHA} Sector ${sector}. Tasa según la ficha: ${written}`,
      NICO: null,
    });
  }
  return numbered(records, 'SYSID');
}

// ---------------------------------------------------------------------------------------------
// requisito-previo, regulaciones, noms: the historic non-tariff rules of the fichas

/** Splits "A ; B (x; y) ; C" at the semicolons outside parentheses. */
function splitRules(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === ';' && depth === 0) {
      items.push(current);
      current = '';
    } else current += ch;
  }
  items.push(current);
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

/** NOM keys in a text; SIICEX sometimes breaks them with spaces (`NOM-051-SC FI /SSA 1- 2010`). */
function nomKeys(text: string): string[] {
  const keys = new Set<string>();
  for (const m of text.matchAll(/NOM-(?:[0-9A-Z/-]|\s(?=[0-9A-Z/-]))+/g)) {
    const squeezed = m[0].replace(/\s+/g, '').replace(/-+/g, '-');
    const key = /^NOM-(?:EM-)?\d{3}(?:\/\d)?-[A-Z]+\d?(?:\/[A-Z]+\d?)*-\d{4}/.exec(squeezed)?.[0];
    if (key) keys.add(key);
  }
  return [...keys];
}

type Direction = 'I' | 'E';

/** A prior permit of the Secretaría de Economía as the rule's subject (not merely mentioned). */
function economyPermit(rule: string, direction: Direction): string | null {
  const subject = rule.replace(/^A partir del [^:,]*[:,]\s*/i, '');
  if (!/^(Permiso previo|Permiso automático|Aviso automático)/i.test(subject)) return null;
  if (direction === 'E') return /^Permiso previo/i.test(subject) ? 'M6' : 'C6';
  if (/usad[oa]s?\b/i.test(subject)) return 'C2';
  return /^Aviso automático/i.test(subject) ? 'AV' : 'C1';
}

/** The apéndice 9 key of a rule when its authority makes it unambiguous; else null. */
function permitKey(rule: string, direction: Direction): string | null {
  const economy = economyPermit(rule, direction);
  if (economy) return economy;
  if (/IMMEX/.test(rule) && /Anexo II/.test(rule)) return 'IM';
  if (/COFEPRIS|sanitari[oa]/i.test(rule)) {
    if (direction === 'E') return /autorización sanitaria/i.test(rule) ? 'S6' : null;
    if (/aviso sanitario/i.test(rule)) return 'S2';
    if (/registro sanitario/i.test(rule)) return 'S3';
    if (/autorización sanitaria/i.test(rule)) return 'S1';
    return null;
  }
  if (/CITES|SEMARNAT/.test(rule)) return direction === 'I' ? 'T1' : 'T8';
  if (/SEDENA|Defensa Nacional/.test(rule)) return 'D1';
  if (/SENER|Secretaría de Energía/.test(rule)) return direction === 'I' ? 'N1' : 'N6';
  if (/CICOPLAFEST/.test(rule)) return 'PF';
  return null;
}

interface RuleRecords {
  readonly requisitoPrevio: Rec[];
  readonly regulaciones: Rec[];
  readonly noms: Rec[];
}

const REQUISITO_DESCRIPTION_MAX = 1999;

function rules(src: Sources): RuleRecords {
  const out: RuleRecords = { requisitoPrevio: [], regulaciones: [], noms: [] };
  for (const f of src.fichas) {
    const fraction = col(f, 'fraccion');
    if (!src.ligieFractions.has(fraction)) continue;
    for (const [column, direction] of [['restr_import', 'I'], ['restr_export', 'E']] as const) {
      for (const rule of splitRules(col(f, column))) {
        const permit = permitKey(rule, direction);
        const flags = { IMPORTACION: direction === 'I' ? 'S' : 'N', EXPORTACION: direction === 'E' ? 'S' : 'N' };
        // Every rule is a non-tariff regulation; permits and NOMs are also listed in their own record sets.
        out.regulaciones.push({
          FRACCION: fraction,
          ...flags,
          PERMISO: permit ? checkedPermit(src, permit) : null,
          CONDICION: rule,
          COMPLEMENTO: HIST_FICHA,
          NICO: null,
        });
        const economy = economyPermit(rule, direction);
        if (economy) {
          const fits = charCount(rule) <= REQUISITO_DESCRIPTION_MAX;
          out.requisitoPrevio.push({
            FRACCION: fraction,
            DESCRIPCION: fits ? rule : cutAt(rule, REQUISITO_DESCRIPTION_MAX),
            PERMISO: checkedPermit(src, economy),
            NOTA: fits ? HIST_FICHA : `${HIST_FICHA} Texto recortado; completo en regulaciones.`,
            NICO: null,
          });
        }
        for (const nom of nomKeys(rule)) {
          out.noms.push({ FRACCION: fraction, NOM: nom, DESCRIPCION: rule, ...flags, NOTAS: HIST_FICHA, NICO: null });
        }
      }
    }
  }
  return {
    requisitoPrevio: numbered(out.requisitoPrevio, 'SYSID'),
    regulaciones: numbered(out.regulaciones, 'SYSID'),
    noms: numbered(out.noms, 'SYSID'),
  };
}

// ---------------------------------------------------------------------------------------------
// rcg2: annexes of the foreign-trade rules named in the fichas

function rcg2(src: Sources): Rec[] {
  const records: Rec[] = [];
  for (const f of src.fichas) {
    const fraction = col(f, 'fraccion');
    if (!src.ligieFractions.has(fraction)) continue;
    const text = col(f, 'anexos');
    const headings = [...text.matchAll(/(?:\*\s*)*Anexo (\d+)([^:;(]{0,30}?)\s*:/g)];
    headings.forEach((h, i) => {
      const start = (h.index ?? 0) + h[0].length;
      const end = headings[i + 1]?.index ?? text.length;
      const condition = text.slice(start, end).trim();
      const imports = /import/i.test(condition);
      const exports = /export/i.test(condition);
      records.push({
        FRACCION: fraction,
        ANEXO: h[1] ?? null,
        SECTOR: (h[2] ?? '').trim() || null,
        CONDICION: `${HIST_FICHA} ${condition}`,
        IMPO: imports || exports ? (imports ? 1 : 0) : null,
        EXPO: imports || exports ? (exports ? 1 : 0) : null,
        NICO: null,
      });
    });
  }
  return numbered(records, 'SYSID');
}

// ---------------------------------------------------------------------------------------------
// cupos: quotas named in the fichas

/** Quota headings of the fichas → partners and agreement (null: any country). */
const QUOTA_PARTIES: readonly { label: string; partners: readonly string[]; agreement: string | null }[] = [
  { label: 'Estados Unidos y Canadá', partners: ['USA', 'CAN'], agreement: 'TLCAN' },
  { label: 'Estados Unidos o Canadá', partners: ['USA', 'CAN'], agreement: 'TLCAN' },
  { label: 'EUA y Canadá', partners: ['USA', 'CAN'], agreement: 'TLCAN' },
  { label: 'Estados Unidos', partners: ['USA'], agreement: null },
  { label: 'Estados de la AELC', partners: ['ISL', 'NOR', 'CHE', 'LIE'], agreement: 'TLC México-AELC' },
  { label: 'Comunidad Europea', partners: ['EMU'], agreement: 'TLCUEM' },
  { label: 'Israel', partners: ['ISR'], agreement: 'TLC México-Israel' },
  { label: 'Japón', partners: ['JPN'], agreement: 'AAE México-Japón' },
  { label: 'Países miembros de la OMC', partners: [], agreement: 'OMC' },
  { label: 'Cualquier país', partners: [], agreement: null },
  { label: 'Todo el mundo', partners: [], agreement: null },
  { label: 'Costa Rica', partners: ['CRI'], agreement: null },
  { label: 'Guatemala', partners: ['GTM'], agreement: null },
  { label: 'Honduras', partners: ['HND'], agreement: null },
  { label: 'Nicaragua', partners: ['NIC'], agreement: null },
  { label: 'Salvador', partners: ['SLV'], agreement: null },
  { label: 'Colombia', partners: ['COL'], agreement: null },
  { label: 'Argentina', partners: ['ARG'], agreement: null },
  { label: 'Uruguay', partners: ['URY'], agreement: null },
  { label: 'Brasil', partners: ['BRA'], agreement: null },
  { label: 'Perú', partners: ['PER'], agreement: null },
  { label: 'Cuba', partners: ['CUB'], agreement: null },
];

const QUOTA_HEADING = new RegExp(
  `(?:^|(?<=[^\\p{L}]))(${QUOTA_PARTIES.map((p) => p.label.replace(/\./g, '\\.')).join('|')})\\s?:\\s`,
  'gu',
);

function quotaPeriod(text: string): { PERIODO: string | null; FECHAINICIO: string | null; FECHAFIN: string | null } {
  if (/de cada año|del año siguiente|del siguiente año/i.test(text)) return { PERIODO: 'ANUAL', FECHAINICIO: null, FECHAFIN: null };
  const m = /Del? (\d{1,2})°? de (\p{L}+)(?:(?: de)? (\d{4}))? al (\d{1,2})°? de (\p{L}+) del? (\d{4})/u.exec(text);
  if (!m) return { PERIODO: null, FECHAINICIO: null, FECHAFIN: null };
  const toYear = m[6] ?? '';
  const fromYear = m[3] ?? toYear;
  const from = date8(Number(fromYear), spanishMonth(m[2] ?? ''), Number(m[1]));
  const to = date8(Number(toYear), spanishMonth(m[5] ?? ''), Number(m[4]));
  if (!from || !to) return { PERIODO: null, FECHAINICIO: null, FECHAFIN: null };
  return { PERIODO: fromYear === toYear ? toYear : `${fromYear}-${toYear}`, FECHAINICIO: from, FECHAFIN: to };
}

/** "…de cada año , bienes textiles y de la confección que cumplan…" → "bienes textiles y de la confección". */
function quotaProduct(text: string): string | null {
  for (const m of text.matchAll(/(?:año|\d{4})\s*,\s*/g)) {
    const rest = text.slice((m.index ?? 0) + m[0].length);
    const product = /^([^,(]+?)(?=\s*,|\s+susceptibles|\s+que cumpl|\s+al amparo|\s+originari|\s*\(|$)/.exec(rest)?.[1]?.trim() ?? '';
    // Date clauses, amendments and references are not the product.
    if (/^(del?|al|a partir|modificad|publicad|esta mercancía)/i.test(product) || /\d|\baño\b/.test(product)) continue;
    if (charCount(product) >= 4 && charCount(product) <= 300) return product;
  }
  return null;
}

function cupos(src: Sources): Rec[] {
  const records: Rec[] = [];
  for (const f of src.fichas) {
    const fraction = col(f, 'fraccion');
    if (!src.ligieFractions.has(fraction)) continue;
    for (const [column, operation] of [['cupos_import', 'I'], ['cupos_export', 'E']] as const) {
      const text = col(f, column);
      if (text === '') continue;
      const headings = [...text.matchAll(QUOTA_HEADING)];
      const segments =
        headings.length === 0
          ? [{ label: null, body: text }]
          : headings.map((h, i) => ({
              label: h[1] ?? null,
              body: text.slice((h.index ?? 0) + h[0].length, headings[i + 1]?.index ?? text.length).trim(),
            }));
      for (const { label, body } of segments) {
        // A few fichas carry an annex note in the quota column; it is not a quota.
        if (label === null && /^\*?\s*Anexo \d+/.test(body)) continue;
        const party = QUOTA_PARTIES.find((p) => p.label === label);
        const partners = party && party.partners.length > 0 ? party.partners : [null];
        for (const p of partners) {
          records.push({
            FRACCION: fraction,
            PRODUCTO: quotaProduct(body),
            PAIS: p === null ? null : checkedCountry(src, p),
            ACUERDO: party?.agreement ?? null,
            TIPOOPERACION: operation,
            ...quotaPeriod(body),
            DOF: firstDofDate(body),
            NOTAS: `${HIST_FICHA} Cupo tal como lo describe la ficha; sin monto ni tasa estructurados.`,
            OBSERVACIONES: label ? `${label}: ${body}` : body,
            NICO: null,
          });
        }
      }
    }
  }
  return numbered(records, 'SYSID');
}

// ---------------------------------------------------------------------------------------------
// fracciones-anteriores: derived from the SAT code history

function fraccionesAnteriores(src: Sources): Rec[] {
  // 2012-era 8-digit codes that ended when the LIGIE 2020 came into force.
  const oldBySubheading = new Map<string, Row[]>();
  for (const r of src.historyRows) {
    const code = col(r, 'fraccion');
    if (code.length !== 8 || col(r, 'texto') === 'Derogada' || col(r, 'vigencia_hasta') !== '2020-12-28') continue;
    pushTo(oldBySubheading, code.slice(0, 6), r);
  }
  const newBySubheading = new Map<string, LigieCode[]>();
  for (const c of src.ligie) pushTo(newBySubheading, c.hs6, c);

  const records: Rec[] = [];
  for (const [hs6, olds] of oldBySubheading) {
    const current = newBySubheading.get(hs6) ?? [];
    const old = olds[0];
    // Only a one-to-one subheading makes the correlation plausible without the official tables.
    if (olds.length !== 1 || !old || new Set(current.map((c) => c.fraction)).size !== 1) continue;
    for (const c of current) {
      records.push({
        FRACCIONACTUAL: c.fraction,
        NICOACTUAL: c.nico,
        FRACCIONANTERIOR: col(old, 'fraccion'),
        NICOANTERIOR: null,
        DOF: isoToDate8(col(old, 'vigencia_hasta')),
      });
    }
  }
  return numbered(records, 'SYSID', 'FRACCIONACTUAL', 'NICOACTUAL');
}

// ---------------------------------------------------------------------------------------------
// The generated record sets (no public data): real fractions and keys, made-up values, marked DEMO

function codesUnder(src: Sources, prefixes: readonly string[]): LigieCode[] {
  return src.ligie.filter((c) => prefixes.some((p) => c.code10.startsWith(p)));
}

/** Codes whose own text can name a product: fits PRODUCTO and is not a residual "Los demás". */
function namedProducts(codes: readonly LigieCode[]): LigieCode[] {
  return codes.filter((c) => charCount(c.text) <= 300 && !/^(los|las) demás/i.test(c.text));
}

function cuotas2(src: Sources): Rec[] {
  const rng = new Rng('cuotas2');
  const countries = ['CHN', 'KOR', 'TWN', 'UKR', 'RUS', 'IND', 'VNM', 'BRA', 'DEU', 'JPN'].map((k) => checkedCountry(src, k));
  if (!src.currencies.has('USD')) throw new Error('demo: USD missing from the currency catalog');
  const records: Rec[] = [];
  let resolution = 0;
  for (const c of rng.sample(namedProducts(codesUnder(src, ['72', '73'])), 48)) {
    for (const country of rng.sample(countries, rng.int(1, 3))) {
      resolution++;
      const specific = rng.int(0, 1) === 1;
      const status = rng.pick(['VIGENTE', 'PROVISIONAL', 'DEFINITIVA']);
      const dof = rng.date(2015, 2024);
      const company = rng.int(0, 2) === 0 ? `Exportadora demo ${rng.int(1, 40)}` : 'Las demás';
      records.push({
        FRACCION: c.fraction,
        PRODUCTO: c.text,
        PAIS: country,
        DOF: dof,
        DOF2: rng.int(0, 3) === 0 ? `DEMO: modificación publicada el ${addYears(dof, 2)}` : null,
        EMPRESA: company,
        INCOTERM: rng.pick(src.incoterms),
        DOLARES: specific ? rng.decimal(0.05, 1.5, 4) : null,
        CLAVEMONEDA: specific ? 'USD' : null,
        CLAVEUM: specific ? '1' : null,
        PORCENTAJE: specific ? null : rng.decimal(5, 80, 2),
        DESCRIPCIONDOLARES: specific ? 'Dólares de los EUA por kilogramo' : null,
        NOTAS: DEMO_MARK,
        ESTATUS: status,
        NUMERORESOLUCION: resolution,
        RESOLUCION: `DEMO: resolución ${status === 'PROVISIONAL' ? 'preliminar' : 'final'} de la investigación antidumping n.º ${resolution}`,
        TIPOCUOTA: status === 'PROVISIONAL' ? 'PROVISIONAL' : 'DEFINITIVA',
        PRECIOREFERENCIA: rng.int(0, 4) === 0 ? rng.decimal(300, 1500, 4) : null,
        FECHAINICIO: dof,
        FECHAFIN: addYears(dof, 5),
        OBSERVACIONES: `${DEMO_MARK} Fracción y país reales; cuota, empresa y resolución inventadas.`,
        NICO: c.nico,
      });
    }
  }
  return numbered(records, 'SYSID');
}

function preciosEstimados2(src: Sources): Rec[] {
  const rng = new Rng('precios-estimados2');
  const records: Rec[] = [];
  for (const c of rng.sample(namedProducts(codesUnder(src, ['61', '62', '64', '72', '73'])), 150)) {
    const dof = rng.date(2016, 2024);
    records.push({
      FRACCION: c.fraction,
      PRODUCTO: c.text,
      DETALLE: 'DEMO: precio de demostración por unidad de la tarifa.',
      CLAVEUM: c.unit,
      DESCRIPCIONUM: src.unitNames.get(c.unit) ?? null,
      PRECIO: c.unit === '1' ? rng.decimal(0.5, 60, 4) : rng.decimal(1, 250, 4),
      CLAVEMONEDA: 'USD',
      DOF: dof,
      VIGENCIA: rng.int(0, 2) === 0 ? addYears(dof, 2) : null,
      NOTAS: DEMO_MARK,
      NICO: c.nico,
    });
  }
  return numbered(records, 'SYSID');
}

/** Made-up makes: a real-looking brand name would read as a fact about that company. */
const DEMO_MAKES: readonly { name: string; type: 'AUTOMOVIL' | 'CAMION' | 'MOTOCICLETA'; heading: string }[] = [
  { name: 'DEMO AUTOS AZTECA', type: 'AUTOMOVIL', heading: '8703' },
  { name: 'DEMO MOTORES DEL BAJÍO', type: 'AUTOMOVIL', heading: '8703' },
  { name: 'DEMO VEHÍCULOS PACÍFICO', type: 'AUTOMOVIL', heading: '8703' },
  { name: 'DEMO AUTOMOTRIZ DEL NORTE', type: 'AUTOMOVIL', heading: '8703' },
  { name: 'DEMO CAMIONES SIERRA', type: 'CAMION', heading: '8704' },
  { name: 'DEMO CARGA PESADA', type: 'CAMION', heading: '8704' },
  { name: 'DEMO UTILITARIOS DEL GOLFO', type: 'CAMION', heading: '8704' },
  { name: 'DEMO MOTOS CENTRO', type: 'MOTOCICLETA', heading: '8711' },
  { name: 'DEMO DOS RUEDAS', type: 'MOTOCICLETA', heading: '8711' },
  { name: 'DEMO MOTO PENINSULAR', type: 'MOTOCICLETA', heading: '8711' },
];

const DEMO_MODELS: Readonly<Record<string, readonly string[]>> = {
  AUTOMOVIL: ['Sedán 1.6 L', 'Hatchback 1.2 L', 'SUV 2.0 L', 'Híbrido 1.8 L', 'Eléctrico 60 kWh'],
  CAMION: ['Pick-up 2.7 L', 'Chasis cabina 4.5 t', 'Tractocamión 13 L', 'Van de carga 2.2 L'],
  MOTOCICLETA: ['Trabajo 125 cc', 'Deportiva 650 cc', 'Scooter 150 cc', 'Doble propósito 250 cc'],
};

const VEHICLE_TYPE_KEYS: Readonly<Record<string, string>> = { AUTOMOVIL: 'A', CAMION: 'C', MOTOCICLETA: 'M' };

function vehicleMakes(src: Sources): { marcas: Rec[]; modelos: Rec[] } {
  const rng = new Rng('vehiculos');
  const marcas: Rec[] = [];
  const modelos: Rec[] = [];
  DEMO_MAKES.forEach((make, i) => {
    const key = `D${String(i + 1).padStart(4, '0')}`;
    const codes = rng.sample(codesUnder(src, [make.heading]), rng.int(3, 6));
    for (const c of codes) marcas.push({ FRACCION: c.fraction, CLAVEMARCA: key, MARCA: make.name, TIPO: make.type, NICO: c.nico });
    for (const model of DEMO_MODELS[make.type] ?? []) {
      const c = rng.pick(codes);
      const [low, high] = make.type === 'MOTOCICLETA' ? [1500, 15000] : make.type === 'CAMION' ? [18000, 120000] : [12000, 60000];
      const baseCents = rng.int(low * 100, high * 100);
      for (let year = 2023; year <= 2025; year++) {
        if (rng.int(0, 3) === 0) continue;
        // The same model costs a little more each model year.
        const cents = Math.round((baseCents * (100 + 3 * (year - 2023))) / 100);
        modelos.push({
          FRACCION: c.fraction,
          CLAVEMARCA: key,
          MARCA: make.name,
          MODELO: `DEMO ${model}`,
          ANIOMODELO: year,
          TIPOVEHICULO: VEHICLE_TYPE_KEYS[make.type] ?? null,
          PRECIOESTIMADO: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
          CLAVEMONEDA: 'USD',
          DOF: rng.date(year - 1, year),
          NICO: c.nico,
        });
      }
    }
  });
  return { marcas: numbered(marcas, 'SYSID'), modelos: numbered(modelos, 'SYSID') };
}

/** IEPS categories by heading, after the Ley del IEPS art. 2; the records themselves are demo. */
const IEPS_RULES: readonly {
  prefix: string;
  category: string;
  type: string;
  rate: string | null;
  quota: string | null;
  unit: string | null;
  ground: string;
}[] = [
  { prefix: '2202', category: 'Bebidas saborizadas', type: 'CUOTA', rate: null, quota: '1.6451', unit: 'Litro', ground: 'Ley del IEPS, art. 2, fracción I, inciso G)' },
  { prefix: '2203', category: 'Cerveza', type: 'AD VALOREM', rate: '26.50', quota: null, unit: null, ground: 'Ley del IEPS, art. 2, fracción I, inciso A), numeral 1' },
  { prefix: '2204', category: 'Vinos', type: 'AD VALOREM', rate: '26.50', quota: null, unit: null, ground: 'Ley del IEPS, art. 2, fracción I, inciso A), numeral 1' },
  { prefix: '2205', category: 'Vermut y vinos aromatizados', type: 'AD VALOREM', rate: '30.00', quota: null, unit: null, ground: 'Ley del IEPS, art. 2, fracción I, inciso A), numeral 2' },
  { prefix: '2206', category: 'Otras bebidas fermentadas', type: 'AD VALOREM', rate: '26.50', quota: null, unit: null, ground: 'Ley del IEPS, art. 2, fracción I, inciso A), numeral 1' },
  { prefix: '2208', category: 'Bebidas alcohólicas de más de 20° G.L.', type: 'AD VALOREM', rate: '53.00', quota: null, unit: null, ground: 'Ley del IEPS, art. 2, fracción I, inciso A), numeral 3' },
  { prefix: '2402', category: 'Cigarros y puros', type: 'MIXTO', rate: '160.00', quota: '0.6166', unit: 'Cigarro', ground: 'Ley del IEPS, art. 2, fracción I, inciso C)' },
  { prefix: '2403', category: 'Tabacos labrados', type: 'AD VALOREM', rate: '160.00', quota: null, unit: null, ground: 'Ley del IEPS, art. 2, fracción I, inciso C)' },
];

function ieps(src: Sources): Rec[] {
  const records: Rec[] = [];
  for (const rule of IEPS_RULES) {
    for (const c of codesUnder(src, [rule.prefix])) {
      records.push({
        FRACCION_SIN_PUNTO: c.fraction,
        FRACCION_CON_PUNTO: dotted8(c.fraction),
        DESCRIPCION: c.text,
        CATEGORIA: rule.category,
        TIPO: rule.type,
        TASA: rule.rate,
        CUOTA: rule.quota,
        UNIDAD: rule.unit,
        FUNDAMENTO: rule.ground,
        DOF: null,
        NOTAS: `${DEMO_MARK} Categoría y tasa tomadas de la Ley del IEPS sin verificar su aplicación a esta fracción.`,
        NICO: c.nico,
      });
    }
  }
  return numbered(records, 'CONSECUTIVO', 'FRACCION_SIN_PUNTO');
}

function reit(src: Sources): Rec[] {
  const rng = new Rng('reit');
  const permit = checkedPermit(src, 'IM');
  return numbered(
    rng.sample(codesUnder(src, ['61', '62', '64', '72', '73']), 80).map((c) => ({
      FRACCION: c.fraction,
      ARTICULO: `Decreto IMMEX, art. ${rng.pick(['4', '5'])}, fracc. ${rng.pick(['I', 'II', 'III'])}`,
      FUNDAMENTO: `${DEMO_MARK} Mercancía sensible del Anexo II del Decreto IMMEX (texto de demostración).`,
      ACUERDO: 'Decreto para el Fomento de la Industria Manufacturera, Maquiladora y de Servicios de Exportación',
      PERMISO: permit,
      DOF: rng.date(2015, 2024),
      DOCUMENTO: 'Autorización IMMEX para mercancías sensibles (demostración)',
      TEMPORALIDAD: rng.pick([6, 12, 18, 36]),
      TEMPORALIDADSERVICIO: rng.int(0, 1) === 0 ? rng.pick([6, 12]) : null,
      TEMPORALIDADCERTIFICADA: rng.int(0, 1) === 0 ? rng.pick([18, 36]) : null,
      NICO: c.nico,
    })),
    'SYSID',
  );
}

const AGREEMENTS: readonly { key: string; name: string; partners: readonly string[] }[] = [
  { key: 'TIPAT', name: 'TIPAT (Asociación Transpacífico, CPTPP)', partners: ['AUS', 'BRN', 'CAN', 'CHL', 'JPN', 'MYS', 'NZL', 'PER', 'SGP', 'VNM'] },
  { key: 'TMEC', name: 'T-MEC (México, Estados Unidos y Canadá)', partners: ['USA', 'CAN'] },
  { key: 'TLCUEM', name: 'TLC México-Unión Europea', partners: ['EMU'] },
  { key: 'TLCAELC', name: 'TLC México-AELC', partners: ['ISL', 'NOR', 'CHE', 'LIE'] },
  { key: 'AAEMJ', name: 'Acuerdo de Asociación Económica México-Japón', partners: ['JPN'] },
  { key: 'TLCMI', name: 'TLC México-Israel', partners: ['ISR'] },
  { key: 'TLCMU', name: 'TLC México-Uruguay', partners: ['URY'] },
  { key: 'AP', name: 'Alianza del Pacífico', partners: ['COL', 'CHL', 'PER'] },
  { key: 'TLCCA', name: 'TLC México-Centroamérica', partners: ['CRI', 'SLV', 'GTM', 'HND', 'NIC'] },
  { key: 'TLCMP', name: 'TLC México-Panamá', partners: ['PAN'] },
];

function fundamentosTlc(src: Sources): Rec[] {
  const rng = new Rng('fundamentos-tlc');
  const [tipat, tmec, ...others] = AGREEMENTS;
  if (!tipat || !tmec) throw new Error('demo: agreements list lost TIPAT or TMEC');
  const records: Rec[] = [];
  for (const c of rng.sample(src.ligie, 36)) {
    // TIPAT and T-MEC on every fraction, so that /fundamentos-tlc/tipat always has something to show.
    for (const a of [tipat, tmec, ...rng.sample(others, rng.int(1, 4))]) {
      records.push({
        FRACCION: c.fraction,
        PAIS: checkedCountry(src, rng.pick(a.partners)),
        TLC: a.name,
        FUNDAMENTO:
          `${DEMO_MARK} Decreto por el que se establece la tasa aplicable del Impuesto General de Importación ` +
          `para las mercancías originarias del ${a.name} (texto de demostración).`,
        FUNDAMENTO2: a.key,
        TASATXT: rng.pick(['Ex.', 'Ex.', 'Ex.', '2.5%', '5%', '10%', 'EXCL']),
        DOF: rng.date(2018, 2024),
        NOTAS: DEMO_MARK,
        NICO: c.nico,
      });
    }
  }
  return numbered(records, 'SYSID');
}

// ---------------------------------------------------------------------------------------------

/** Every record of the demo dataset, record set by record set. */
export function* demoRecords(sourcesDir: string): Generator<DemoRecord> {
  const src = loadSources(sourcesDir);
  const ruleRecords = rules(src);
  const vehicles = vehicleMakes(src);
  const sets: readonly (readonly [string, () => Rec[]])[] = [
    ['aladi2', () => aladi2(src, sourcesDir)],
    ['cuotas2', () => cuotas2(src)],
    ['cupos', () => cupos(src)],
    ['fracciones', () => fracciones(src)],
    ['fracciones-usa', () => fraccionesUsa(sourcesDir)],
    ['fracciones-anteriores', () => fraccionesAnteriores(src)],
    ['fundamentos-tlc', () => fundamentosTlc(src)],
    ['informacion-general', () => informacionGeneral(src)],
    ['precios-estimados2', () => preciosEstimados2(src)],
    ['prosec', () => prosec(src, sourcesDir)],
    ['rcg2', () => rcg2(src)],
    ['reit', () => reit(src)],
    ['requisito-previo', () => ruleRecords.requisitoPrevio],
    ['tlcs', () => tlcs(src, sourcesDir)],
    ['vehiculos-marcas', () => vehicles.marcas],
    ['vehiculos-modelos', () => vehicles.modelos],
    ['regulaciones', () => ruleRecords.regulaciones],
    ['ieps', () => ieps(src)],
    ['noms', () => ruleRecords.noms],
  ];
  for (const [recordSet, build] of sets) {
    for (const record of build()) yield { recordSet, record };
  }
}
