/**
 * The demo's older version: the 8-digit tariff in force on 2 July 2012, when the TIGIE 2012 (decree
 * of DOF 29 June 2012) took effect according to the SAT code history, with the TIGIE 2012 rates and
 * preferences as SIICEX published them. No NICO existed then: every record has `NICO` null.
 *
 * Identifiers are shared with the current version (the LIGIE 2022) wherever a record is the same
 * record, so that `/api/v1/cambios` reports what really changed between the two: a fraction that kept
 * its number keeps its SYSID (the record of its first NICO in 2022), a historic record built from the
 * same source row keeps its identifier, and every record of its own gets an identifier above the
 * current version's highest.
 */
import type { fracciones as fraccionesSet } from '../../record-sets/fracciones.js';
import type { informacionGeneral as informacionGeneralSet } from '../../record-sets/informacion-general.js';
import type { RowOf } from '../../record-sets/define.js';
import { correlateReplaced } from './cupos.js';
import { isRoman } from './fracciones.js';
import type { Rec, Row, Sources } from './sources.js';
import { col, compare, dotted8, isoToDate8, numbered, readCsv, UNIT_ABBREVIATIONS } from './sources.js';
import { tigie2012Duties } from './values.js';

/** The day the 8-digit codes of the TIGIE 2012 came into force in the SAT catalog (the old ones end on 2012-07-01). */
export const TIGIE_2012_FROM = '2012-07-02';

export const HIST_IGI_2012 =
  'HISTÓRICO: IGI/IGE de la TIGIE 2012 según SIICEX-CAAAREM (consulta de diciembre de 2014), que pueden ' +
  'incluir reformas posteriores al 2 de julio de 2012; no son tasas vigentes.';

export interface Code2012 {
  readonly fraction: string;
  /** The SAT catalog's text, or SIICEX's where the catalog only says `Derogada`; null when neither has one. */
  readonly text: string | null;
  readonly textFromSiicex: boolean;
  readonly unit: string | null;
  readonly validFrom: string;
  readonly validUntil: string;
}

/** The 8-digit codes of the SAT history in force on `date` (vigencia_desde ≤ date < vigencia_hasta), in code order. */
export function codesInForce(src: Sources, dir: string, date: string): Code2012[] {
  const siicex = new Map<string, Row>();
  for (const r of readCsv(dir, 'tigie2012-siicex/fracciones_igi_ige.csv', ['fraccion', 'descripcion', 'unidad'])) {
    if (!siicex.has(col(r, 'fraccion'))) siicex.set(col(r, 'fraccion'), r);
  }
  const codes: Code2012[] = [];
  for (const r of src.historyRows) {
    const fraction = col(r, 'fraccion');
    const until = col(r, 'vigencia_hasta');
    if (fraction.length !== 8 || col(r, 'vigencia_desde') > date || (until !== '' && until <= date)) continue;
    // The catalog overwrote the text of a code it later derogated; SIICEX (December 2014) may still have it.
    const own = col(r, 'texto');
    const other = siicex.get(fraction);
    const otherText = other ? col(other, 'descripcion') : '';
    const fromSiicex = own === 'Derogada' && otherText !== '' && otherText !== 'SUPRIMIDA';
    const unitKey = col(r, 'unidad');
    const unit = /^\d+$/.test(unitKey) ? String(Number(unitKey)) : null;
    codes.push({
      fraction,
      text: own !== 'Derogada' ? own : fromSiicex ? otherText : null,
      textFromSiicex: fromSiicex,
      unit: unit !== null && UNIT_ABBREVIATIONS[unit] ? unit : null,
      validFrom: col(r, 'vigencia_desde'),
      validUntil: until,
    });
  }
  return codes.sort((a, b) => compare(a.fraction, b.fraction));
}

function codeNotes(c: Code2012, withRates: boolean): string | null {
  const notes: string[] = [];
  if (withRates) notes.push(HIST_IGI_2012);
  if (c.textFromSiicex) notes.push('Texto de SIICEX-CAAAREM: el catálogo SAT solo dice «Derogada».');
  if (c.text === null) notes.push('Sin texto en las fuentes: el catálogo SAT solo dice «Derogada».');
  if (c.validUntil !== '') notes.push(`Fracción con vigencia hasta ${c.validUntil} en el catálogo SAT.`);
  return notes.length > 0 ? notes.join(' ') : null;
}

export function fracciones2012(src: Sources, codes: readonly Code2012[]): RowOf<typeof fraccionesSet>[] {
  return codes.map((c): RowOf<typeof fraccionesSet> => {
    const rates = src.igi.get(c.fraction);
    return {
      FRACCION: c.fraction,
      FRACCIONPUNTO: dotted8(c.fraction),
      DESCRIPCION: c.text,
      UMCLAVE: c.unit,
      UMABREVIACION: c.unit === null ? null : (UNIT_ABBREVIATIONS[c.unit] ?? null),
      ...tigie2012Duties(rates),
      DOF: isoToDate8(c.validFrom),
      NOTAS: codeNotes(c, rates !== undefined),
      HISTORICO: codeHistory2012(src, c.fraction),
      NIVEL: 5,
      NICO: null,
    };
  });
}

function codeHistory2012(src: Sources, fraction: string): string {
  const parts = (src.history.get(fraction) ?? []).map((r) => {
    const until = col(r, 'vigencia_hasta');
    return `${fraction} vigente desde ${col(r, 'vigencia_desde')}${until ? ` hasta ${until}` : ''}`;
  });
  return `Catálogo SAT de fracciones arancelarias: ${parts.join('; ')}.`;
}

/** Every code placed in its section, chapter, heading and subheading: the 2012-era fichas' Spanish first, then the LIGIE 2022's, then the HS 2022 English. */
export function informacionGeneral2012(src: Sources, codes: readonly Code2012[]): RowOf<typeof informacionGeneralSet>[] {
  const fichaTexts = new Map<string, string>();
  const fichaSections = new Map<string, string>();
  for (const f of src.fichas) {
    for (const level of ['capitulo', 'partida', 'subpartida']) {
      const code = col(f, `${level}_codigo`);
      const text = col(f, `${level}_descripcion`);
      if (code !== '' && text !== '' && !fichaTexts.has(code)) fichaTexts.set(code, text);
    }
    if (!fichaSections.has(col(f, 'capitulo_codigo'))) fichaSections.set(col(f, 'capitulo_codigo'), col(f, 'seccion_codigo'));
  }
  const text = (code: string): string | null => {
    const hs = src.hs.get(code);
    return fichaTexts.get(code) ?? src.spanish.texts.get(code) ?? (hs ? col(hs, 'description') : null);
  };
  return codes.map((c): RowOf<typeof informacionGeneralSet> => {
    const chapter = c.fraction.slice(0, 2);
    const hsChapter = src.hs.get(chapter);
    const hsSection = hsChapter ? col(hsChapter, 'section') : '';
    const section = isRoman(hsSection) ? hsSection : (fichaSections.get(chapter) ?? null);
    const rates = src.igi.get(c.fraction);
    return {
      FRACCION: c.fraction,
      SECCION: section,
      DESCRIPCIONSECCION: section ? (src.spanish.sections.get(section) ?? src.sections.get(section) ?? null) : null,
      CAPITULO: chapter,
      DESCRIPCIONCAPITULO: text(chapter),
      PARTIDA: c.fraction.slice(0, 4),
      DESCRIPCIONPARTIDA: text(c.fraction.slice(0, 4)),
      SUBPARTIDA: c.fraction.slice(0, 6),
      DESCRIPCIONSUBPARTIDA: text(c.fraction.slice(0, 6)),
      DESCRIPCION: c.text,
      DESCRIPCIONNICO: null,
      UMCLAVE: c.unit,
      UMABREVIACION: c.unit === null ? null : (UNIT_ABBREVIATIONS[c.unit] ?? null),
      ADVIMPOTXT: rates?.igi || null,
      ADVEXPOTXT: rates?.ige || null,
      DOF: isoToDate8(c.validFrom),
      NOTAS: rates ? HIST_IGI_2012 : null,
      NICO: null,
    };
  });
}

/** The 2007 → 2012 correlation by the rule of the current one (codes that ended on 2012-07-01). */
export function fraccionesAnteriores2012(src: Sources, codes: readonly Code2012[]): Rec[] {
  const olds = src.historyRows.filter((r) => col(r, 'fraccion').length === 8 && col(r, 'vigencia_hasta') === '2012-07-01');
  const records = correlateReplaced(
    olds,
    codes.map((c) => ({ fraction: c.fraction, nico: null, hs6: c.fraction.slice(0, 6) })),
  );
  return numbered(records, 'SYSID', 'FRACCIONACTUAL', 'NICOACTUAL');
}

// ---------------------------------------------------------------------------------------------
// Identifiers shared with the current version

/**
 * Gives each older record the identifier of the current record with the same key (`keyOf`; among
 * records of equal key, the n-th older one takes the n-th current one's), and every other older record
 * a new identifier above all the current ones, in its own order.
 */
export function sharedIds(current: readonly Rec[], older: Rec[], idField: string, keyOf: (r: Rec) => string): Rec[] {
  const ids = new Map<string, unknown[]>();
  let highest = 0;
  for (const r of current) {
    const key = keyOf(r);
    const list = ids.get(key);
    if (list) list.push(r[idField]);
    else ids.set(key, [r[idField]]);
    highest = Math.max(highest, Number(r[idField]));
  }
  // The older records are made for this version alone: they take their identifier in place.
  for (const r of older) r[idField] = ids.get(keyOf(r))?.shift() ?? ++highest;
  return older;
}

/** A record's content without its identifier: two records built from the same source row have the same. */
export const contentKey =
  (idField: string) =>
  (r: Rec): string => {
    let key = '';
    for (const name in r) if (name !== idField) key += `${name}\u0000${String(r[name])}\u0001`;
    return key;
  };

/** The current version's records of the fractions of the older one, with NICO null (the era had none) and the same identifiers. */
export function restrictedToEra(current: readonly Rec[], fractions: ReadonlySet<string>, fractionField: string, nicoField: string): Rec[] {
  return current.filter((r) => fractions.has(String(r[fractionField]))).map((r) => ({ ...r, [nicoField]: null }));
}
