/** Non-tariff rules of the SIICEX fichas: regulaciones, requisito-previo, noms, rcg2 (historic). */
import type { rcg2 as rcg2Set } from '../../record-sets/rcg2.js';
import type { RowOf } from '../../record-sets/define.js';
import type { noms as nomsSet } from '../../record-sets/noms.js';
import type { regulaciones as regulacionesSet } from '../../record-sets/regulaciones.js';
import type { requisitoPrevio as requisitoPrevioSet } from '../../record-sets/requisito-previo.js';
import type { Sources } from './sources.js';
import { charCount, checkedPermit, col, HIST_FICHA, numbered } from './sources.js';
import { cutAt } from './usa.js';

/** Splits "A ; B (x; y) ; C" at the semicolons outside parentheses. */
export function splitRules(text: string): string[] {
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
export function nomKeys(text: string): string[] {
  const keys = new Set<string>();
  for (const m of text.matchAll(/NOM-(?:[0-9A-Z/-]|\s(?=[0-9A-Z/-]))+/g)) {
    const squeezed = m[0].replace(/\s+/g, '').replace(/-+/g, '-');
    const key = /^NOM-(?:EM-)?\d{3}(?:\/\d)?-[A-Z]+\d?(?:\/[A-Z]+\d?)*-\d{4}/.exec(squeezed)?.[0];
    if (key) keys.add(key);
  }
  return [...keys];
}

export type Direction = 'I' | 'E';

/** A prior permit of the Secretaría de Economía as the rule's subject (not merely mentioned). */
export function economyPermit(rule: string, direction: Direction): string | null {
  const subject = rule.replace(/^A partir del [^:,]*[:,]\s*/i, '');
  if (!/^(Permiso previo|Permiso automático|Aviso automático)/i.test(subject)) return null;
  if (direction === 'E') return /^Permiso previo/i.test(subject) ? 'M6' : 'C6';
  if (/usad[oa]s?\b/i.test(subject)) return 'C2';
  return /^Aviso automático/i.test(subject) ? 'AV' : 'C1';
}

/** The apéndice 9 key of a rule when its authority makes it unambiguous; else null. */
export function permitKey(rule: string, direction: Direction): string | null {
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

export interface RuleRecords {
  readonly requisitoPrevio: RowOf<typeof requisitoPrevioSet>[];
  readonly regulaciones: RowOf<typeof regulacionesSet>[];
  readonly noms: RowOf<typeof nomsSet>[];
}

export const REQUISITO_DESCRIPTION_MAX = 1999;

export function rules(src: Sources, fractions: ReadonlySet<string> = src.ligieFractions): RuleRecords {
  const out: RuleRecords = { requisitoPrevio: [], regulaciones: [], noms: [] };
  for (const f of src.fichas) {
    const fraction = col(f, 'fraccion');
    if (!fractions.has(fraction)) continue;
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

export function rcg2(src: Sources, fractions: ReadonlySet<string> = src.ligieFractions): RowOf<typeof rcg2Set>[] {
  const records: RowOf<typeof rcg2Set>[] = [];
  for (const f of src.fichas) {
    const fraction = col(f, 'fraccion');
    if (!fractions.has(fraction)) continue;
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
