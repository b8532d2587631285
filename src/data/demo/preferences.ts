/** Trade preferences: free-trade agreements, ALADI and PROSEC (historic, SIICEX). */
import type { tlcs as tlcsSet } from '../../record-sets/tlcs.js';
import type { aladi2 as aladi2Set } from '../../record-sets/aladi2.js';
import type { prosec as prosecSet } from '../../record-sets/prosec.js';
import type { RowOf } from '../../record-sets/define.js';
import type { Sources } from './sources.js';
import { checkedCountry, col, HIST_FICHA, numbered, sourceRows } from './sources.js';
import { fitRate, parseDuty, plainRate, withoutValidityClause } from './values.js';

/** Partners as the SIICEX fichas name them → Anexo 22 apéndice 4 keys (EMU: Comunidad Europea). */
export const PARTNERS: Readonly<Record<string, string>> = {
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

export function partner(src: Sources, name: string): string {
  const key = PARTNERS[name.trim()];
  if (!key) throw new Error(`demo: no country key for partner "${name}"`);
  return checkedCountry(src, key);
}

/** `fractions`: the fractions of the version being built (the LIGIE 2022 ones unless told). */
export function tlcs(src: Sources, dir: string, fractions: ReadonlySet<string> = src.ligieFractions): RowOf<typeof tlcsSet>[] {
  const rows = sourceRows(src, dir, 'tigie2012-siicex/tlc_tasas.csv', ['fraccion', 'grupo', 'pais_tratado', 'tasa']);
  const order = new Map<string, number>();
  const records: RowOf<typeof tlcsSet>[] = [];
  for (const r of rows) {
    const fraction = col(r, 'fraccion');
    if (!fractions.has(fraction)) continue;
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
export function marginsByPartner(text: string): Map<string, string> {
  const margins = new Map<string, string>();
  for (const m of text.matchAll(/((?:[A-ZÁÉÍÓÚ][a-záéíóú]+)(?: y [A-ZÁÉÍÓÚ][a-záéíóú]+)*) (\d+)(?=\s|$)/g)) {
    for (const name of (m[1] ?? '').split(' y ')) if (m[2]) margins.set(name, m[2]);
  }
  return margins;
}

/** `10` × (1 − 48 %) → `5.2%`: the rate left after a margin, from the historic general rate. */
export function rateAfterMargin(generalRate: string | null, margin: string): string | null {
  if (generalRate === null) return null;
  const hundredths = Math.round(Number(generalRate) * 100) * (100 - Number(margin));
  const value = hundredths / 10000;
  return `${Number(value.toFixed(4))}%`;
}

export function aladi2(src: Sources, dir: string, fractions: ReadonlySet<string> = src.ligieFractions): RowOf<typeof aladi2Set>[] {
  const rows = sourceRows(src, dir, 'tigie2012-siicex/aladi_preferencias.csv', ['fraccion', 'acuerdo', 'preferencia_texto']);
  const records: RowOf<typeof aladi2Set>[] = [];
  for (const r of rows) {
    const fraction = col(r, 'fraccion');
    if (!fractions.has(fraction)) continue;
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

/** The article of the PROSEC decree (DOF 2 August 2002) that lists each sector's fractions and rates. */
export const PROSEC_ARTICLE = '4';

export function prosec(src: Sources, dir: string, fractions: ReadonlySet<string> = src.ligieFractions): RowOf<typeof prosecSet>[] {
  const rows = sourceRows(src, dir, 'tigie2012-siicex/prosec_tasas.csv', ['fraccion', 'sector', 'tasa']);
  const records: RowOf<typeof prosecSet>[] = [];
  for (const r of rows) {
    const fraction = col(r, 'fraccion');
    if (!fractions.has(fraction)) continue;
    const sector = col(r, 'sector');
    const roman = /^([IVXL]+)\s/.exec(sector)?.[1];
    if (!roman) throw new Error(`demo: PROSEC sector without a roman numeral: ${sector}`);
    const written = col(r, 'tasa');
    const num = plainRate(withoutValidityClause(written));
    records.push({
      FRACCION: fraction,
      // Derived: the decree's article 4 lists the fractions of every sector (see docs/demo-dataset.md).
      ARTICULO: PROSEC_ARTICLE,
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
