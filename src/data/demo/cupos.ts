/** Quotas of the fichas and the correlation of replaced fractions. */
import type { cupos as cuposSet } from '../../record-sets/cupos.js';
import type { fraccionesAnteriores as fraccionesAnterioresSet } from '../../record-sets/fracciones-anteriores.js';
import type { RowOf } from '../../record-sets/define.js';
import type { Row, Sources } from './sources.js';
import { charCount, checkedCountry, col, HIST_FICHA, isoToDate8, numbered, pushTo } from './sources.js';
import { date8, firstDofDate, spanishMonth } from './values.js';

/** Quota headings of the fichas → partners and agreement (null: any country). */
export const QUOTA_PARTIES: readonly { label: string; partners: readonly string[]; agreement: string | null }[] = [
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

export const QUOTA_HEADING = new RegExp(
  `(?:^|(?<=[^\\p{L}]))(${QUOTA_PARTIES.map((p) => p.label.replace(/\./g, '\\.')).join('|')})\\s?:\\s`,
  'gu',
);

export function quotaPeriod(text: string): { PERIODO: string | null; FECHAINICIO: string | null; FECHAFIN: string | null } {
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
export function quotaProduct(text: string): string | null {
  for (const m of text.matchAll(/(?:año|\d{4})\s*,\s*/g)) {
    const rest = text.slice((m.index ?? 0) + m[0].length);
    const product = /^([^,(]+?)(?=\s*,|\s+susceptibles|\s+que cumpl|\s+al amparo|\s+originari|\s*\(|$)/.exec(rest)?.[1]?.trim() ?? '';
    // Date clauses, amendments and references are not the product.
    if (/^(del?|al|a partir|modificad|publicad|esta mercancía)/i.test(product) || /\d|\baño\b/.test(product)) continue;
    if (charCount(product) >= 4 && charCount(product) <= 300) return product;
  }
  return null;
}

export function cupos(src: Sources, fractions: ReadonlySet<string> = src.ligieFractions): RowOf<typeof cuposSet>[] {
  const records: RowOf<typeof cuposSet>[] = [];
  for (const f of src.fichas) {
    const fraction = col(f, 'fraccion');
    if (!fractions.has(fraction)) continue;
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

export function fraccionesAnteriores(src: Sources): RowOf<typeof fraccionesAnterioresSet>[] {
  // 2012-era 8-digit codes that ended when the LIGIE 2020 came into force.
  const olds = src.historyRows.filter((r) => col(r, 'fraccion').length === 8 && col(r, 'texto') !== 'Derogada' && col(r, 'vigencia_hasta') === '2020-12-28');
  return numbered(correlateReplaced(olds, src.ligie), 'SYSID', 'FRACCIONACTUAL', 'NICOACTUAL');
}

/** A code of the nomenclature a correlation points to (its NICO null in the 8-digit era). */
export interface CorrelatedCode {
  readonly fraction: string;
  readonly nico: string | null;
  readonly hs6: string;
}

/**
 * Where a 6-digit subheading had exactly one old code (of `olds`, the SAT history rows of the codes
 * that ended) and has exactly one fraction among `codes`, the two are correlated, one record per
 * code, `DOF` the date the old code ended: plausible, not the official correlation tables.
 */
export function correlateReplaced(olds: readonly Row[], codes: readonly CorrelatedCode[]): RowOf<typeof fraccionesAnterioresSet>[] {
  const oldBySubheading = new Map<string, Row[]>();
  for (const r of olds) pushTo(oldBySubheading, col(r, 'fraccion').slice(0, 6), r);
  const newBySubheading = new Map<string, CorrelatedCode[]>();
  for (const c of codes) pushTo(newBySubheading, c.hs6, c);

  const records: RowOf<typeof fraccionesAnterioresSet>[] = [];
  for (const [hs6, oldRows] of oldBySubheading) {
    const current = newBySubheading.get(hs6) ?? [];
    const old = oldRows[0];
    // Only a one-to-one subheading makes the correlation plausible without the official tables.
    if (oldRows.length !== 1 || !old || new Set(current.map((c) => c.fraction)).size !== 1) continue;
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
  return records;
}
