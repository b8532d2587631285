/** Rates and dates as the sources write them, and the seeded generator of the demo records. */
import type { Igi } from './common.js';
import { charCount } from './common.js';

export interface ParsedRate {
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
export function parseDuty(written: string): ParsedRate {
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

/** The duty fields of a fraction from its TIGIE 2012 rates as SIICEX wrote them (all null without them). */
export function tigie2012Duties(rates: Igi | undefined) {
  const imp = rates ? parseDuty(rates.igi) : null;
  const exp = rates ? parseDuty(rates.ige) : null;
  return {
    ADVIMPOTXT: rates?.igi || null,
    ADVIMPONUM: imp?.num ?? null,
    TIPOTASAADVIMPO: imp?.type ?? null,
    ADVEXPOTXT: rates?.ige || null,
    ADVEXPONUM: exp?.num ?? null,
    TIPOTASAADVEXPO: exp?.type ?? null,
    ARANCELMIXTO: imp?.mixed ? 'S' : null,
    TASAMIXTA: imp?.mixedSpecific ?? null,
    ARANCELESPECIFICO: imp?.specific ? 'S' : null,
  };
}

/** A preference written as a plain number or `Ex.`: its numeric value; anything with words: null. */
export function plainRate(written: string): string | null {
  const s = written.trim();
  if (/^ex\.?$/i.test(s)) return '0';
  const m = /^(\d+(?:\.\d+)?) ?%?$/.exec(s);
  return m?.[1] ?? null;
}

/** The rate without a leading or trailing "A partir del …" validity clause. */
export function withoutValidityClause(text: string): string {
  return text
    .replace(/^A partir del \S+\s*/i, '')
    .replace(/\s*\(?\s*A partir del .*$/i, '')
    .trim();
}

/**
 * A rate text that fits a field of `max` characters. Texts that fit are kept as written; longer ones
 * get a short form and the caller keeps the full text in the record's notes, so nothing is lost.
 */
export function fitRate(text: string, max: number): string | null {
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

export const ROMAN_MONTHS: Readonly<Record<string, number>> = {
  I: 1, II: 2, III: 3, IV: 4, V: 5, VI: 6, VII: 7, VIII: 8, IX: 9, X: 10, XI: 11, XII: 12,
};
export const SPANISH_MONTHS: readonly string[] = [
  'enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre',
];

export function date8(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  return `${year}${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}`;
}

/** The first "DOF 29/XII/2004" in a text. */
export function firstDofDate(text: string): string | null {
  const m = /DOF (\d{1,2})\/([IVX]+)\/(\d{4})/.exec(text);
  if (!m?.[1] || !m[2] || !m[3]) return null;
  const month = ROMAN_MONTHS[m[2]];
  return month === undefined ? null : date8(Number(m[3]), month, Number(m[1]));
}

export function spanishMonth(name: string): number {
  return SPANISH_MONTHS.indexOf(name.toLowerCase()) + 1;
}

// ---------------------------------------------------------------------------------------------
// A seeded generator for the demo records

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export class Rng {
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

export function addYears(date: string, years: number): string {
  return `${Number(date.slice(0, 4)) + years}${date.slice(4)}`;
}
