/**
 * The nomenclature in Spanish, newest first: the LIGIE 2022 as transcribed (chapters 01–27, 39–49,
 * 64–67, with its 2022 IGI/IGE), then the TIGIE 2012-era SIICEX fichas (every chapter, about half the
 * headings and subheadings); the HS 2022 English is what is left where neither has a text.
 */
import type { Rec, Row } from './common.js';
import { col, readCsv } from './common.js';
import { parseDuty } from './values.js';

export const LIGIE_2022_RATES =
  'IGI/IGE de la LIGIE 2022 (DOF 7 de junio de 2022) según una transcripción pública sin verificar; ' +
  'reformas posteriores pueden faltar: no son tasas vigentes garantizadas.';

export interface SpanishNomenclature {
  /** Code of 2, 4, 6 or 8 digits → its Spanish text. */
  readonly texts: ReadonlyMap<string, string>;
  /** Section (roman numeral) → its Spanish name. */
  readonly sections: ReadonlyMap<string, string>;
  /** 8-digit fraction → IGI and IGE as the transcription writes them. */
  readonly rates: ReadonlyMap<string, { readonly igi: string; readonly ige: string }>;
}

export function readSpanishNomenclature(dir: string, fichas: readonly Row[]): SpanishNomenclature {
  const texts = new Map<string, string>();
  const rates = new Map<string, { igi: string; ige: string }>();
  const sections = new Map<string, string>();
  const section = (roman: string, text: string): void => {
    if (roman !== '' && text !== '' && !sections.has(roman)) sections.set(roman, text);
  };
  const put = (code: string, text: string): void => {
    if (code !== '' && text !== '' && !texts.has(code)) texts.set(code, text);
  };
  const ligie = readCsv(dir, 'ligie2022-transcrita/ligie2022_transcrita.csv', [
    'seccion',
    'seccion_texto',
    'capitulo',
    'capitulo_texto',
    'partida',
    'partida_texto',
    'subpartida',
    'subpartida_texto',
    'fraccion',
    'fraccion_texto',
    'igi',
    'ige',
  ]);
  for (const r of ligie) {
    section(col(r, 'seccion'), col(r, 'seccion_texto'));
    put(col(r, 'capitulo'), col(r, 'capitulo_texto'));
    put(col(r, 'partida'), col(r, 'partida_texto'));
    put(col(r, 'subpartida'), col(r, 'subpartida_texto'));
    put(col(r, 'fraccion'), col(r, 'fraccion_texto'));
    if (!rates.has(col(r, 'fraccion'))) rates.set(col(r, 'fraccion'), { igi: col(r, 'igi'), ige: col(r, 'ige') });
  }
  for (const f of fichas) {
    section(col(f, 'seccion_codigo'), col(f, 'seccion_descripcion'));
    put(col(f, 'capitulo_codigo'), col(f, 'capitulo_descripcion'));
    put(col(f, 'partida_codigo'), col(f, 'partida_descripcion'));
    put(col(f, 'subpartida_codigo'), col(f, 'subpartida_descripcion'));
  }
  return { texts, rates, sections };
}

/** A 2022 rate as the interface writes rates: `10%`, `Ex.`, `AE`, `AMX`, `Prohibida`. */
function written(rate: string): string {
  if (/^\d+(\.\d+)?$/.test(rate)) return `${rate}%`;
  if (/^ex\.?$/i.test(rate)) return 'Ex.';
  return rate;
}

/** The duty fields of a fraction from the 2022 transcription, or null where it has none. */
export function ligie2022Duties(spanish: SpanishNomenclature, fraction: string): Rec | null {
  const rate = spanish.rates.get(fraction);
  if (!rate || rate.igi === '') return null;
  const igi = written(rate.igi);
  const ige = rate.ige === '' ? null : written(rate.ige);
  const imp = parseDuty(igi);
  const exp = ige === null ? null : parseDuty(ige);
  return {
    ADVIMPOTXT: igi,
    ADVIMPONUM: imp.num,
    TIPOTASAADVIMPO: imp.type ?? (rate.igi === 'AMX' ? 1 : null),
    ADVEXPOTXT: ige,
    ADVEXPONUM: exp?.num ?? null,
    TIPOTASAADVEXPO: exp?.type ?? null,
    ARANCELMIXTO: rate.igi === 'AMX' ? 'S' : null,
    TASAMIXTA: null,
    ARANCELESPECIFICO: rate.igi === 'AE' ? 'S' : null,
  };
}
