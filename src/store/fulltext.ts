/**
 * Search by description (`/api/v1/buscar`): the parts both stores share. A query is reduced to plain
 * terms (letters and digits, lower-case, without accents) before any store sees it, so no search
 * syntax of either engine can be typed in: quotes, operators and parentheses are just separators.
 */

export const MAX_QUERY_LENGTH = 200;
const MAX_TERMS = 12;

export interface FullTextQuery {
  /** Words, each matched as a word prefix (`refrig` finds `refrigeradores`); all must match. */
  readonly terms: readonly string[];
  /** A tariff code or its beginning (digits only): the query was a code, not words. */
  readonly code: string | null;
  readonly skip: number;
  readonly limit: number;
}

export interface FullTextHit {
  FRACCION: string;
  NICO: string | null;
  DESCRIPCION: string | null;
  DESCRIPCION_MARCADA: string | null;
  DESCRIPCIONFRACCION: string | null;
  DESCRIPCIONSUBPARTIDA: string | null;
  DESCRIPCIONPARTIDA: string | null;
  DESCRIPCIONCAPITULO: string | null;
  RELEVANCIA: number;
}

export interface FullTextResult {
  readonly hits: FullTextHit[];
  readonly total: number;
}

export const MARK_OPEN = '<mark>';
export const MARK_CLOSE = '</mark>';

export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{Mn}/gu, '').toLowerCase();
}

/** The searchable terms of what a person typed. */
export function queryTerms(q: string): string[] {
  return (fold(q).match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_TERMS);
}

/** Digits only (dots and spaces allowed): a code prefix of up to 10 digits, else null. */
export function queryCode(q: string): string | null {
  const digits = q.replace(/[.\s]/g, '');
  return /^\d{1,10}$/.test(digits) ? digits : null;
}

/**
 * The text with every word that a query term matched (as a word prefix, accents and case aside)
 * between MARK_OPEN and MARK_CLOSE. Done here rather than by each engine so that both stores mark
 * the text as it is stored, accents and capitals included, in the same way.
 */
export function markTerms(text: string, terms: readonly string[]): string {
  if (terms.length === 0) return text;
  return text.replace(/[\p{L}\p{N}]+/gu, (word) => {
    const folded = fold(word);
    return terms.some((t) => folded.startsWith(t)) ? `${MARK_OPEN}${word}${MARK_CLOSE}` : word;
  });
}
