/**
 * The search documents: one per tariff line (fraction + NICO), built by every load from the record
 * sets (`fracciones`, `informacion-general`, `fracciones-usa`) and the search references, whatever
 * the dataset. Each document carries its texts analysed into five fields of terms, weighted at query
 * time: the line's own words, the hierarchy's (subheading and heading), the chapter's, the search
 * references that name its codes, and the rest (words of a "para …"/"partes de …" clause and the
 * English of the US tariff lines of the same HS subheading).
 */
import { fracciones } from '../record-sets/fracciones.js';
import { fraccionesUsa } from '../record-sets/fracciones-usa.js';
import { informacionGeneral } from '../record-sets/informacion-general.js';
import type { RecordSet } from '../record-sets/define.js';
import { dotted } from '../fraccion.js';
import { quote } from '../sql-text.js';
import { headTerms, splitTerms, words } from './analysis.js';
import type { Reference } from './references.js';

/** A field name of a record set, checked against its declaration when this module loads. */
function field(rs: RecordSet, name: string): string {
  if (!rs.fields.some((f) => f.name === name)) throw new Error(`search: record set ${rs.path} has no field ${name}`);
  return quote(name);
}

const F = (name: string): string => `f.${field(fracciones, name)}`;
const I = (name: string): string => `i.${field(informacionGeneral, name)}`;

/** The rows a load turns into documents; the same SQL on both stores. */
export const LINES_SQL = `SELECT ${F('FRACCION')} AS "FRACCION", ${F('NICO')} AS "NICO", ${F('DESCRIPCION')} AS "DESCRIPCION",
  ${I('DESCRIPCION')} AS "DESCRIPCIONFRACCION", ${I('DESCRIPCIONNICO')} AS "DESCRIPCIONNICO",
  ${I('DESCRIPCIONSUBPARTIDA')} AS "DESCRIPCIONSUBPARTIDA", ${I('DESCRIPCIONPARTIDA')} AS "DESCRIPCIONPARTIDA",
  ${I('DESCRIPCIONCAPITULO')} AS "DESCRIPCIONCAPITULO"
FROM ${quote(fracciones.table)} f
LEFT JOIN ${quote(informacionGeneral.table)} i ON ${I('FRACCION')} = ${F('FRACCION')}
  AND (${I('NICO')} = ${F('NICO')} OR (${I('NICO')} IS NULL AND ${F('NICO')} IS NULL))
WHERE ${F('FRACCION')} IS NOT NULL
ORDER BY 1, 2`;

/**
 * The US tariff's lines in their order, with their indent: a line without a code ("Dresses:", "Other
 * electrothermic appliances:") names the goods of the coded lines indented under it.
 */
export const ENGLISH_SQL = `SELECT ${field(fraccionesUsa, 'FRACCION_SIN_PUNTO')} AS "CODE", ${field(fraccionesUsa, 'DESCRIPCION')} AS "TEXT",
  ${field(fraccionesUsa, 'NIVEL')} AS "LEVEL"
FROM ${quote(fraccionesUsa.table)} ORDER BY ${field(fraccionesUsa, 'CONSECUTIVO')}`;

export interface LineRow {
  FRACCION: string;
  NICO: string | null;
  DESCRIPCION: string | null;
  DESCRIPCIONFRACCION: string | null;
  DESCRIPCIONNICO: string | null;
  DESCRIPCIONSUBPARTIDA: string | null;
  DESCRIPCIONPARTIDA: string | null;
  DESCRIPCIONCAPITULO: string | null;
}

export interface EnglishRow {
  CODE: string | null;
  TEXT: string | null;
  /** The indent: a line is under the nearest line before it with a smaller one. */
  LEVEL: number | null;
}

/** The term fields, in the order of their weights in ranking.ts. */
export const TERM_FIELDS = ['T_REFERENCIA', 'T_CABEZA', 'T_LINEA', 'T_JERARQUIA', 'T_CAPITULO', 'T_OTROS', 'T_INGLES'] as const;
export type TermField = (typeof TERM_FIELDS)[number];

/**
 * A field's terms are stored tagged with the field's digit (`1automovil`: a head word, `3automovil`:
 * a word of the line), all in one column, so that one index answers both "which lines have this
 * word" and "which have it in this field".
 */
export const fieldTag = (field: TermField): string => String(TERM_FIELDS.indexOf(field) + 1);

/** The fields holding a line's own texts: what the goods are, as the tariff words it (not a reference, a purpose or English). */
export const OWN_TEXTS: readonly TermField[] = ['T_CABEZA', 'T_LINEA', 'T_JERARQUIA'];

export interface SearchDocument {
  CODIGO: string;
  FRACCION: string;
  NICO: string | null;
  DESCRIPCION: string | null;
  DESCRIPCIONFRACCION: string | null;
  DESCRIPCIONSUBPARTIDA: string | null;
  DESCRIPCIONPARTIDA: string | null;
  DESCRIPCIONCAPITULO: string | null;
  RUTA: string;
  TERMINOS: string;
}

/** Display columns of the search table, in order (then the term fields). */
export const DOCUMENT_COLUMNS = [
  'CODIGO',
  'FRACCION',
  'NICO',
  'DESCRIPCION',
  'DESCRIPCIONFRACCION',
  'DESCRIPCIONSUBPARTIDA',
  'DESCRIPCIONPARTIDA',
  'DESCRIPCIONCAPITULO',
  'RUTA',
] as const;

export const SEARCH_COLUMNS = [...DOCUMENT_COLUMNS, 'TERMINOS'] as const;

/** "Chapter › heading › subheading › fraction" with each level's code and text, so a "Los demás" line reads in context. */
export function pathOf(row: LineRow): string {
  const f = row.FRACCION;
  const level = (code: string, text: string | null): string => (text ? `${dotted(code)} ${text}` : dotted(code));
  const line = row.DESCRIPCIONFRACCION ?? row.DESCRIPCION;
  return [
    level(f.slice(0, 2), row.DESCRIPCIONCAPITULO),
    level(f.slice(0, 4), row.DESCRIPCIONPARTIDA),
    level(f.slice(0, 6), row.DESCRIPCIONSUBPARTIDA),
    level(f.slice(0, 8), line),
  ].join(' › ');
}

/**
 * English texts by code (4-digit heading lines and every line under a 6-digit subheading): `coded`,
 * the coded lines' own texts; `named`, those with the texts of the lines without a code above them,
 * which head the coded lines indented under them ("Dresses:" over "Of synthetic fibers") and name
 * goods the coded lines' own texts do not name at all.
 */
export function englishIndex(rows: Iterable<EnglishRow>): EnglishTexts {
  const coded = new Map<string, string[]>();
  const named = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, key: string, text: string): void => {
    let list = map.get(key);
    if (!list) map.set(key, (list = []));
    if (!list.includes(text)) list.push(text);
  };
  // The lines above the current one, by indent (the US tariff's headings are at 0).
  const above: { level: number; text: string; coded: boolean }[] = [];
  for (const r of rows) {
    const code = (r.CODE ?? '').replace(/\D/g, '');
    const level = r.LEVEL ?? 0;
    while (above.length > 0 && above[above.length - 1]!.level >= level) above.pop();
    if (r.TEXT) above.push({ level, text: r.TEXT, coded: code !== '' });
    if (code.length < 4 || !r.TEXT) continue;
    const key = code.length === 4 ? code : code.slice(0, 6);
    for (const a of above) if (!a.coded) add(named, key, a.text);
    add(named, key, r.TEXT);
    add(coded, key, r.TEXT);
  }
  return { coded, named };
}

export interface EnglishTexts {
  readonly coded: ReadonlyMap<string, readonly string[]>;
  readonly named: ReadonlyMap<string, readonly string[]>;
}

/** Reference stems by code, for the lines under each code. */
export function referenceIndex(references: readonly Reference[]): Map<string, string[]> {
  const byCode = new Map<string, string[]>();
  for (const r of references) {
    for (const code of r.codes) {
      let list = byCode.get(code);
      if (!list) byCode.set(code, (list = []));
      list.push(...r.terms);
    }
  }
  return byCode;
}

export function referencesFor(code: string, byCode: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (let n = 2; n <= code.length; n++) found.push(...(byCode.get(code.slice(0, n)) ?? []));
  return found;
}

function tagged(fields: Readonly<Record<TermField, readonly string[]>>): string {
  // A space at each end, so that ` 3viv ` finds a whole term and ` 3acer` a term's start.
  return ` ${TERM_FIELDS.flatMap((f) => [...new Set(fields[f])].map((t) => fieldTag(f) + t)).join(' ')} `;
}

export function buildDocument(row: LineRow, englishTexts: EnglishTexts, references: ReadonlyMap<string, readonly string[]>): SearchDocument {
  const code = row.FRACCION + (row.NICO ?? '');
  const own = splitTerms([row.DESCRIPCION, row.DESCRIPCIONFRACCION, row.DESCRIPCIONNICO].filter(Boolean).join('. '));
  const hierarchy = splitTerms(`${row.DESCRIPCIONSUBPARTIDA ?? ''}. ${row.DESCRIPCIONPARTIDA ?? ''}`);
  const chapter = splitTerms(row.DESCRIPCIONCAPITULO ?? '');
  const english = englishTexts.coded;
  const englishText = [...(english.get(row.FRACCION.slice(0, 4)) ?? []), ...(english.get(row.FRACCION.slice(0, 6)) ?? [])].join('. ');
  const englishTerms = splitTerms(englishText);
  // The US lines of the line's own HS subheading, with the lines above them: what an English description is read against.
  const subheading = (englishTexts.named.get(row.FRACCION.slice(0, 6)) ?? []).flatMap((t) => splitTerms(t).main);
  return {
    CODIGO: code,
    FRACCION: row.FRACCION,
    NICO: row.NICO,
    DESCRIPCION: row.DESCRIPCION,
    DESCRIPCIONFRACCION: row.DESCRIPCIONFRACCION,
    DESCRIPCIONSUBPARTIDA: row.DESCRIPCIONSUBPARTIDA,
    DESCRIPCIONPARTIDA: row.DESCRIPCIONPARTIDA,
    DESCRIPCIONCAPITULO: row.DESCRIPCIONCAPITULO,
    RUTA: pathOf(row),
    TERMINOS: tagged({
      T_CABEZA: [row.DESCRIPCIONPARTIDA, row.DESCRIPCIONSUBPARTIDA, row.DESCRIPCIONFRACCION ?? row.DESCRIPCION].flatMap((t) => headTerms(t ?? '')),
      T_REFERENCIA: referencesFor(code, references),
      T_LINEA: own.main,
      T_JERARQUIA: hierarchy.main,
      T_CAPITULO: chapter.main,
      T_OTROS: [...own.context, ...hierarchy.context, ...chapter.context, ...englishTerms.main, ...englishTerms.context],
      T_INGLES: subheading,
    }),
  };
}

/** Words and their stems over all documents, for typo correction and suggestions (see vocabulary.ts). */
export interface VocabularyRow {
  PALABRA: string;
  TERMINO: string;
  FRECUENCIA: number;
}

/** The distinct folded words of the Spanish texts and of the references, with the number of lines holding each. */
export function vocabularyOf(rows: readonly LineRow[], references: readonly Reference[], stemOf: (w: string) => string): VocabularyRow[] {
  const counts = new Map<string, number>();
  for (const row of rows) {
    const seen = new Set(
      words(
        [row.DESCRIPCION, row.DESCRIPCIONFRACCION, row.DESCRIPCIONNICO, row.DESCRIPCIONSUBPARTIDA, row.DESCRIPCIONPARTIDA, row.DESCRIPCIONCAPITULO].join(' '),
      ),
    );
    for (const w of seen) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  for (const r of references) for (const w of r.words) if (!counts.has(w)) counts.set(w, 1);
  return [...counts].filter(([w]) => w.length >= 3 && !/^\d+$/.test(w)).map(([w, n]) => ({ PALABRA: w, TERMINO: stemOf(w), FRECUENCIA: n }));
}
